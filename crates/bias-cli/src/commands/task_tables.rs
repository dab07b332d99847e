//! The tables of `bias task`'s results, each with its interval note and direction line: printed
//! by `bias task` and laid out by `bias report --tasks` from the JSON it writes.

use bias_metrics::bbq::Condition;
use bias_metrics::stereoset::{ScoreIntervals, Scores, StereoSetFullScores, StereoSetIntervals};
use bias_metrics::Interval;
use bias_robust::text::write_markdown_table;
use bias_tasks::winogender::WinogenderAccuracy;
use bias_tasks::BbqSummary;

/// One table: a title, its header and rows, and the note under it (intervals, direction).
pub struct TaskTable {
    pub title: String,
    pub headers: Vec<&'static str>,
    pub rows: Vec<Vec<String>>,
    pub note: String,
}

/// The tables as Markdown text.
pub fn text(tables: &[TaskTable]) -> String {
    let mut out = String::new();
    for t in tables {
        out.push_str(&t.title);
        out.push_str("\n\n");
        write_markdown_table(&mut out, &t.headers, &t.rows);
        out.push('\n');
        out.push_str(&t.note);
        out.push_str("\n\n");
    }
    out.truncate(out.trim_end().len());
    out.push('\n');
    out
}

/// `value [lower, upper]`, or the value alone without an interval; `–` for none.
fn with_ci(v: Option<f64>, ci: Option<Interval>, digits: usize) -> String {
    match (v, ci) {
        (Some(v), Some(i)) => format!("{v:.digits$} [{:.digits$}, {:.digits$}]", i.lower, i.upper),
        _ => fmt(v, digits),
    }
}

fn fmt(v: Option<f64>, digits: usize) -> String {
    v.map_or_else(|| "–".to_owned(), |v| format!("{v:.digits$}"))
}

/// BBQ: lm-eval's numbers (with intervals), then the authors' table.
pub fn bbq(model: &str, s: &BbqSummary) -> Vec<TaskTable> {
    let e = &s.lm_eval;
    let ci = &s.intervals;
    let mut rows = vec![vec![
        "all".to_owned(),
        with_ci(Some(e.acc), Some(ci.acc), 4),
        with_ci(e.accuracy_amb, ci.accuracy_amb, 4),
        with_ci(e.accuracy_disamb, ci.accuracy_disamb, 4),
        with_ci(e.amb_bias_score, ci.amb_bias_score, 4),
        with_ci(e.disamb_bias_score, ci.disamb_bias_score, 4),
    ]];
    for (category, b) in &e.by_category {
        rows.push(vec![
            category.clone(),
            String::new(),
            String::new(),
            String::new(),
            fmt(b.ambiguous, 4),
            fmt(b.disambiguated, 4),
        ]);
    }
    let lm_eval = TaskTable {
        title: format!(
            "BBQ, {model}: {} examples, lm-evaluation-harness's `bbq` task",
            e.n
        ),
        headers: vec![
            "category",
            "acc",
            "accuracy_amb",
            "accuracy_disamb",
            "amb_bias_score",
            "disamb_bias_score",
        ],
        rows,
        note: format!(
            "[a, b]: {:.0} % percentile bootstrap interval ({} replicates, seed {}, stratified by \
             category).\nDirection: accuracy, higher is better (1 = every answer right). Bias \
             scores in [-1, 1]: 0 = no bias, positive = answers follow the stereotype, negative = \
             they go against it; farther from 0 is more biased.",
            100.0 * ci.options.level,
            ci.options.replicates,
            ci.options.seed
        ),
    };
    let rows = s
        .authors
        .iter()
        .zip(&s.authors_paper_text)
        .map(|(a, p)| {
            vec![
                a.category.clone(),
                match a.condition {
                    Condition::Ambiguous => "ambig".to_owned(),
                    Condition::Disambiguated => "disambig".to_owned(),
                },
                a.n.to_string(),
                format!("{:.4}", a.accuracy),
                fmt(a.bias_score, 2),
                fmt(p.bias_score, 2),
            ]
        })
        .collect();
    let authors = TaskTable {
        title: format!(
            "BBQ, {model}: the BBQ authors' script (BBQ_calculate_bias_score.R: target_loc, names \
             apart, ×100)"
        ),
        headers: vec![
            "category",
            "context",
            "n",
            "accuracy",
            "bias score (script)",
            "bias score (paper text)",
        ],
        rows,
        note: "Direction: bias scores in [-100, 100]: 0 = no bias, positive = answers follow the \
               stereotype; the script counts the target as biased in both polarities, the paper's \
               text the non-target for non-negative questions."
            .to_owned(),
    };
    vec![lm_eval, authors]
}

/// Winogender: every task's accuracy with its interval.
pub fn winogender(model: &str, acc: &[WinogenderAccuracy]) -> Vec<TaskTable> {
    vec![TaskTable {
        title: format!("Winogender, {model}: lm-evaluation-harness's winogender tasks"),
        headers: vec!["task", "n", "acc"],
        rows: acc
            .iter()
            .map(|a| {
                vec![
                    a.task.name().to_owned(),
                    a.n.to_string(),
                    with_ci(a.acc, a.interval, 4),
                ]
            })
            .collect(),
        note: "[a, b]: 95 % percentile bootstrap interval (1000 replicates, seed 0).\nDirection: \
               acc, higher is better (0.5 = chance between the two referents); a gap between the \
               male and female tasks, or a lower gotcha acc, is gender bias."
            .to_owned(),
    }]
}

/// StereoSet: SS, LMS and ICAT per task and domain, the overall rows with intervals.
pub fn stereoset(
    model: &str,
    split: &str,
    intersentence: bias_tasks::stereoset::Intersentence,
    s: &StereoSetFullScores,
    ci: &StereoSetIntervals,
) -> Vec<TaskTable> {
    let cell = |v: f64, i: Option<Interval>| with_ci(Some(v), i, 2);
    let row = |task: &str, group: &str, x: &Scores, i: Option<&ScoreIntervals>| {
        vec![
            task.to_owned(),
            group.to_owned(),
            x.n_items.to_string(),
            cell(x.ss, i.map(|i| i.ss)),
            cell(x.lms, i.map(|i| i.lms)),
            cell(x.icat, i.map(|i| i.icat)),
        ]
    };
    let mut rows = Vec::new();
    for (task, scores, i) in [
        ("intrasentence", &s.intrasentence, ci.intrasentence.as_ref()),
        ("intersentence", &s.intersentence, ci.intersentence.as_ref()),
    ] {
        for (domain, x) in &scores.by_domain {
            rows.push(row(task, domain, x, None));
        }
        rows.push(row(task, "overall", &scores.overall, i));
    }
    rows.push(row("both", "overall", &s.overall, Some(&ci.overall)));
    vec![TaskTable {
        title: format!("StereoSet {split}, {model}"),
        headers: vec!["task", "domain", "items", "SS", "LMS", "ICAT"],
        rows,
        note: format!(
            "Intersentence scored by {}.\n[a, b]: {:.0} % percentile bootstrap interval ({} \
             replicates, seed {}, items resampled within task and domain).\nDirection: SS 50 = no bias, above 50 = prefers \
             the stereotype; LMS higher is better (100 = always prefers a meaningful sentence); \
             ICAT 100 = unbiased and always meaningful.",
            match intersentence {
                bias_tasks::stereoset::Intersentence::Conditional =>
                    "log P(sentence | context) per token (a masked LM: its PLL given the context)",
                bias_tasks::stereoset::Intersentence::NextSentenceHead =>
                    "the next-sentence head's P(IsNext), as StereoSet's evaluation of BERT",
            },
            100.0 * ci.options.level,
            ci.options.replicates,
            ci.options.seed
        ),
    }]
}
