//! Presentation of a [`ControlledReport`]: its trend and probe tables (kaneko2023 Table 1 and
//! §3.4), as Markdown (through [`crate::text::write_markdown_table`]) and as CSV.

use std::fmt::Write as _;

use super::trend::{ControlledReport, MeasureTrend};
use crate::text::{format_p_value, write_markdown_table};

/// An optional number formatted with `f`, or `–` when undefined.
fn fmt_opt(v: Option<f64>, f: impl Fn(f64) -> String) -> String {
    v.map_or_else(|| "–".to_owned(), f)
}

impl ControlledReport {
    /// The row whose [`MeasureTrend::measure`] label is `measure` (`AUL indicator`, `TBS`).
    pub fn trend(&self, measure: &str) -> Option<&MeasureTrend> {
        self.rows.iter().find(|r| r.measure == measure)
    }

    /// The trend table as header and body cells (for `bias_report::report::Section::table`):
    /// measure | value at each rate | ρ | p | CI | items | degenerate resamples. Unsigned
    /// measures are marked with `*`.
    pub fn trend_table(&self) -> (Vec<String>, Vec<Vec<String>>) {
        let mut header = vec!["measure".to_owned()];
        header.extend(self.rates.iter().map(|r| format!("r = {r}")));
        // Rounded so that 0.9 prints as 90, not 90.00000000000001.
        let level = (100.0 * self.confidence * 1e6).round() / 1e6;
        header.extend(
            [
                "ρ",
                "p",
                &format!("{level} % CI of ρ"),
                "items",
                "degenerate",
            ]
            .map(str::to_owned),
        );
        let body = self
            .rows
            .iter()
            .map(|t| {
                let mark = if t.signed { "" } else { " *" };
                let mut cells = vec![format!("{}{mark}", t.measure)];
                cells.extend(t.values.iter().map(|v| format!("{v:.3}")));
                cells.push(fmt_opt(t.rho, |r| format!("{r:.3}")));
                cells.push(fmt_opt(t.p_value, format_p_value));
                cells.push(t.ci.map_or("–".to_owned(), |(l, h)| format!("[{l:.3}, {h:.3}]")));
                cells.push(t.items.to_string());
                cells.push(format!("{} / {}", t.degenerate_resamples, self.bootstrap));
                cells
            })
            .collect();
        (header, body)
    }

    /// The probe table (r | model | P(he) | P(she)), empty when no rate has a probe.
    pub fn probe_table(&self) -> (Vec<String>, Vec<Vec<String>>) {
        let header = ["r", "model", "P(he)", "P(she)"]
            .map(str::to_owned)
            .to_vec();
        if self.probe.iter().all(Option::is_none) {
            return (header, Vec::new());
        }
        let body = self
            .rates
            .iter()
            .zip(&self.models)
            .zip(&self.probe)
            .map(|((r, m), p)| {
                vec![
                    r.to_string(),
                    m.clone(),
                    fmt_opt(p.map(|p| p.he), |v| format!("{v:.4}")),
                    fmt_opt(p.map(|p| p.she), |v| format!("{v:.4}")),
                ]
            })
            .collect();
        (header, body)
    }

    /// The report as Markdown: the trend table (kaneko2023 Table 1 with the values behind each
    /// ρ), notes on undefined ρ and unsigned measures, and the probe table of §3.4.
    pub fn to_markdown(&self) -> String {
        let mut md = String::from("## Bias-controlled meta-evaluation (kaneko2023)\n\n");
        let (h, b) = self.trend_table();
        write_markdown_table(&mut md, &h, &b);
        let _ = write!(
            md,
            "\nρ: Spearman's rank correlation between the rate of bias r (share of male \
             training sentences) and the measure; p: two-sided, t-approximation; CI: percentile \
             bootstrap over the evaluation items ({} resamples, seed {}); degenerate: resamples \
             where ρ is undefined or a measure failed, left out. \"–\": undefined (ρ when the \
             values do not vary, the CI without valid resamples).\n",
            self.bootstrap, self.seed
        );
        if self.rows.iter().any(|t| !t.signed) {
            md.push_str(
                "\n\\* unsigned measure (KLS, JSS): it measures how far male and female scores \
                 differ, not which is favoured, so it is expected to be V-shaped in r and its ρ \
                 with r is not its test.\n",
            );
        }
        let (h, b) = self.probe_table();
        if !b.is_empty() {
            md.push_str("\n### He/she probe (kaneko2023 §3.4)\n\n");
            write_markdown_table(&mut md, &h, &b);
            let verdict = match self.probe_he_monotonic {
                Some(true) => "P(he) never falls and P(she) never rises as r grows: the bias control worked.",
                Some(false) => "P(he) falls or P(she) rises somewhere as r grows: the bias control is not monotone.",
                None => "Some rates have no probe: monotonicity not checked.",
            };
            let _ = writeln!(md, "\n{verdict}");
        }
        md
    }

    /// The trends as CSV, one line per (measure, rate):
    /// `measure,scorer,signed,rate,model,value,rho,p_value,ci_lower,ci_upper,degenerate_resamples,resamples`
    /// (an undefined value is an empty cell; cells are quoted when they hold a comma, quote or
    /// line break).
    pub fn to_csv(&self) -> String {
        // Writing to memory cannot fail: the `csv` writer's only errors are those of its sink.
        let bytes = self.csv_bytes().expect("writing CSV to memory cannot fail");
        // Every cell is a `String`, so the bytes are UTF-8.
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// The bytes of [`ControlledReport::to_csv`].
    fn csv_bytes(&self) -> Result<Vec<u8>, csv::Error> {
        let mut out = csv::Writer::from_writer(Vec::new());
        out.write_record(CSV_HEADER)?;
        let opt = |v: Option<f64>| v.map(|v| v.to_string()).unwrap_or_default();
        for t in &self.rows {
            for ((rate, model), value) in self.rates.iter().zip(&self.models).zip(&t.values) {
                out.write_record([
                    t.measure.clone(),
                    t.scorer.clone().unwrap_or_default(),
                    t.signed.to_string(),
                    rate.to_string(),
                    model.clone(),
                    value.to_string(),
                    opt(t.rho),
                    opt(t.p_value),
                    opt(t.ci.map(|c| c.0)),
                    opt(t.ci.map(|c| c.1)),
                    t.degenerate_resamples.to_string(),
                    self.bootstrap.to_string(),
                ])?;
            }
        }
        out.into_inner().map_err(|e| e.into_error().into())
    }
}

/// The columns of [`ControlledReport::to_csv`].
const CSV_HEADER: [&str; 12] = [
    "measure",
    "scorer",
    "signed",
    "rate",
    "model",
    "value",
    "rho",
    "p_value",
    "ci_lower",
    "ci_upper",
    "degenerate_resamples",
    "resamples",
];

#[cfg(test)]
mod tests {
    use super::super::{MeasureTrend, Probe};
    use super::*;

    /// A report of two rates whose model names hold a `|`, a comma and a quote.
    fn report() -> ControlledReport {
        ControlledReport {
            rates: vec![0.0, 1.0],
            models: vec!["a|b".to_owned(), "c,\"d\"".to_owned()],
            rows: vec![MeasureTrend {
                measure: "AUL indicator".to_owned(),
                scorer: Some("aul".to_owned()),
                signed: true,
                no_bias: 50.0,
                items: 4,
                values: vec![25.0, 75.0],
                rho: Some(1.0),
                p_value: Some(0.00001234),
                ci: None,
                degenerate_resamples: 0,
            }],
            probe: vec![Some(Probe { he: 0.1, she: 0.2 }), None],
            probe_he_monotonic: None,
            bootstrap: 0,
            confidence: 0.95,
            seed: 0,
        }
    }

    #[test]
    fn markdown_escapes_bars_and_uses_the_shared_p_format() {
        let md = report().to_markdown();
        assert!(md.contains("| 0 | a\\|b | 0.1000 | 0.2000 |"), "{md}");
        assert!(md.contains("| 1 | c,\"d\" | – | – |"), "{md}");
        assert!(
            md.contains("| AUL indicator | 25.000 | 75.000 | 1.000 | 1.234e-5 | – | 4 | 0 / 0 |"),
            "{md}"
        );
    }

    #[test]
    fn csv_quotes_cells_with_commas_and_quotes() {
        let csv = report().to_csv();
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines[0], CSV_HEADER.join(","));
        assert_eq!(
            lines[1],
            "AUL indicator,aul,true,0,a|b,25,1,0.00001234,,,0,0"
        );
        assert_eq!(
            lines[2],
            "AUL indicator,aul,true,1,\"c,\"\"d\"\"\",75,1,0.00001234,,,0,0"
        );
        assert_eq!(lines.len(), 3);
        assert!(csv.ends_with('\n'));
    }
}
