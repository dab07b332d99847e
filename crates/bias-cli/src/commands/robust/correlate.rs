//! `bias robust correlate`: correlation and mutual information between measures across models
//! (liu2024 Fig. 4).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

use bias_metrics::MeasureSpec;
use bias_report::report::format_p_value;
use bias_robust::{correlate_measures, CorrelateOptions};
use clap::Args;

use crate::error::CliError;
use crate::output::{fixed, write_result, Format};
use crate::tables::models;

/// Arguments of `bias robust correlate`.
#[derive(Debug, Args)]
pub struct CorrelateArgs {
    /// Score tables; every (dataset, scorer, model) slice is one model (at least 4 for the
    /// mutual information with k = 3).
    #[arg(long, required = true, num_args = 1..)]
    scores: Vec<PathBuf>,
    /// Only the rows of this scorer.
    #[arg(long)]
    scorer: Option<String>,
    /// Measures to correlate (indicator, kls, jss, jss-paper).
    #[arg(long, value_delimiter = ',', default_value = "indicator,kls,jss")]
    measures: Vec<MeasureSpec>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
}

/// Runs `bias robust correlate`.
pub fn run(a: &CorrelateArgs, out: &mut impl Write) -> Result<(), CliError> {
    let models = models(&a.scores, a.scorer.as_deref())?;
    let mut values = Vec::new();
    for (name, table) in &models {
        let mut per: BTreeMap<String, f64> = BTreeMap::new();
        for m in &a.measures {
            per.insert(m.name().to_owned(), m.measure(table)?.value);
        }
        values.push((name.clone(), per));
    }
    let c = correlate_measures(&values, &CorrelateOptions::default())?;
    let header = "measure A | measure B | Pearson r | p | mutual information";
    write_result(a.format, out, &c, header, |g| {
        for i in 0..c.measures.len() {
            for j in i + 1..c.measures.len() {
                g.push(vec![
                    c.measures[i].clone(),
                    c.measures[j].clone(),
                    fixed(c.r[i][j], 3),
                    format_p_value(c.p_value[i][j]),
                    c.mutual_info[i][j].map_or("n/a".into(), |v| fixed(v, 3)),
                ]);
            }
        }
    })
}
