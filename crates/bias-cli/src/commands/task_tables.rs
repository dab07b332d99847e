//! The tables of `bias task`'s results, each with its interval note and direction line: printed
//! by `bias task` and laid out by `bias report --tasks` from the JSON it writes.

use bias_metrics::bbq::{Condition, ScoreStatistics};
use bias_metrics::stats::PermutationOptions;
use bias_metrics::stereoset::{
    RowStatistics, ScoreIntervals, Scores, StereoSetFullScores, StereoSetIntervals,
};
use bias_metrics::FamilyOptions;
use bias_metrics::Interval;
use bias_report::report::p_text;
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

/// A bias score with its interval and a star when its adjusted p is at most α.
fn scored(v: Option<f64>, st: Option<&ScoreStatistics>, digits: usize) -> String {
    let star = if st.is_some_and(|s| s.verdict.significant) {
        " *"
    } else {
        ""
    };
    format!("{}{star}", with_ci(v, st.and_then(|s| s.interval), digits))
}

/// `p (adjusted p)` of a cell; `–` without a test.
fn p_cell(st: Option<&ScoreStatistics>) -> String {
    st.map_or_else(
        || "–".to_owned(),
        |s| {
            format!(
                "{} ({})",
                p_text(s.verdict.p_value),
                p_text(s.verdict.p_adjusted)
            )
        },
    )
}

/// The note line on the tests of a table.
fn tests_note(family: &FamilyOptions, size: usize, what: &str) -> String {
    format!(
        "p (adjusted p): the exact two-sided binomial (sign) test of the biased answers among the \
         answers that are not unknown, against ½ ({what}); * = {}.",
        family.describe(size)
    )
}

fn fmt(v: Option<f64>, digits: usize) -> String {
    v.map_or_else(|| "–".to_owned(), |v| format!("{v:.digits$}"))
}

/// BBQ: lm-eval's numbers (with intervals), then the authors' table.
pub fn bbq(model: &str, s: &BbqSummary) -> Vec<TaskTable> {
    let e = &s.lm_eval;
    let ci = &s.intervals;
    let stats = s.statistics.as_ref();
    let lm = |category: &str, i: usize| stats.and_then(|t| t.lm_eval.get(category)?[i].as_ref());
    let mut rows = vec![vec![
        "all".to_owned(),
        with_ci(Some(e.acc), Some(ci.acc), 4),
        with_ci(e.accuracy_amb, ci.accuracy_amb, 4),
        with_ci(e.accuracy_disamb, ci.accuracy_disamb, 4),
        scored(e.amb_bias_score, lm("all", 0), 4),
        p_cell(lm("all", 0)),
        scored(e.disamb_bias_score, lm("all", 1), 4),
        p_cell(lm("all", 1)),
    ]];
    // Without statistics (an older bbq.json) the overall intervals still stand.
    if stats.is_none() {
        rows[0][4] = with_ci(e.amb_bias_score, ci.amb_bias_score, 4);
        rows[0][6] = with_ci(e.disamb_bias_score, ci.disamb_bias_score, 4);
    }
    for (category, b) in &e.by_category {
        rows.push(vec![
            category.clone(),
            String::new(),
            String::new(),
            String::new(),
            scored(b.ambiguous, lm(category, 0), 4),
            p_cell(lm(category, 0)),
            scored(b.disambiguated, lm(category, 1), 4),
            p_cell(lm(category, 1)),
        ]);
    }
    let lm_tests = stats.map_or_else(String::new, |t| {
        let size = t.lm_eval.values().flatten().flatten().count();
        format!(
            "\n{}",
            tests_note(&t.family, size, "overall and per category, both contexts")
        )
    });
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
            "amb p (adj.)",
            "disamb_bias_score",
            "disamb p (adj.)",
        ],
        rows,
        note: format!(
            "[a, b]: {:.0} % percentile bootstrap interval ({} replicates, seed {}; overall \
             stratified by category, a category's own examples resampled for its row).\n\
             Direction: accuracy, higher is better (1 = every answer right). Bias \
             scores in [-1, 1]: 0 = no bias, positive = answers follow the stereotype, negative = \
             they go against it; farther from 0 is more biased.{lm_tests}",
            100.0 * ci.options.level,
            ci.options.replicates,
            ci.options.seed
        ),
    };
    let authors_stats = |i: usize, paper: bool| {
        stats.and_then(|t| {
            if paper {
                t.authors_paper_text.get(i)?.as_ref()
            } else {
                t.authors.get(i)?.as_ref()
            }
        })
    };
    let rows = s
        .authors
        .iter()
        .zip(&s.authors_paper_text)
        .enumerate()
        .map(|(i, (a, p))| {
            vec![
                a.category.clone(),
                match a.condition {
                    Condition::Ambiguous => "ambig".to_owned(),
                    Condition::Disambiguated => "disambig".to_owned(),
                },
                a.n.to_string(),
                format!("{:.4}", a.accuracy),
                scored(a.bias_score, authors_stats(i, false), 2),
                p_cell(authors_stats(i, false)),
                scored(p.bias_score, authors_stats(i, true), 2),
                p_cell(authors_stats(i, true)),
            ]
        })
        .collect();
    let authors_tests = stats.map_or_else(String::new, |t| {
        let size = t.authors.iter().flatten().count();
        format!(
            "\n[a, b]: {:.0} % percentile bootstrap interval of the row's examples. {}",
            100.0 * t.bootstrap.level,
            tests_note(
                &t.family,
                size,
                "each definition's table a family of its own"
            )
        )
    });
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
            "script p (adj.)",
            "bias score (paper text)",
            "paper text p (adj.)",
        ],
        rows,
        note: format!(
            "Direction: bias scores in [-100, 100]: 0 = no bias, positive = answers follow the \
             stereotype; the script counts the target as biased in both polarities, the paper's \
             text the non-target for non-negative questions.{authors_tests}"
        ),
    };
    vec![lm_eval, authors]
}

/// Winogender: every task's accuracy with its interval.
pub fn winogender(model: &str, acc: &[WinogenderAccuracy]) -> Vec<TaskTable> {
    vec![TaskTable {
        title: format!("Winogender, {model}: lm-evaluation-harness's winogender tasks"),
        headers: vec!["task", "n", "acc", "p vs ½ (adj.)"],
        rows: acc
            .iter()
            .map(|a| {
                let star = if a.verdict.is_some_and(|v| v.significant) {
                    " *"
                } else {
                    ""
                };
                vec![
                    a.task.name().to_owned(),
                    a.n.to_string(),
                    format!("{}{star}", with_ci(a.acc, a.interval, 4)),
                    a.verdict.map_or_else(
                        || "–".to_owned(),
                        |v| format!("{} ({})", p_text(v.p_value), p_text(v.p_adjusted)),
                    ),
                ]
            })
            .collect(),
        note: format!(
            "[a, b]: 95 % percentile bootstrap interval (1000 replicates, seed 0).\nDirection: \
             acc, higher is better (0.5 = chance between the two referents); a gap between the \
             male and female tasks, or a lower gotcha acc, is gender bias.\np vs ½ (adjusted p): \
             the exact two-sided binomial (sign) test of the right answers against chance; * = {}.",
            FamilyOptions::default().describe(acc.iter().filter(|a| a.verdict.is_some()).count())
        ),
    }]
}

/// StereoSet: SS, LMS and ICAT per task and domain, every row with its intervals and SS's test
/// when `statistics` are there (older results: the overall rows' intervals only).
pub fn stereoset(
    model: &str,
    split: &str,
    intersentence: bias_tasks::stereoset::Intersentence,
    s: &StereoSetFullScores,
    ci: &StereoSetIntervals,
    statistics: Option<&[RowStatistics]>,
) -> Vec<TaskTable> {
    let cell = |v: f64, i: Option<Interval>| with_ci(Some(v), i, 2);
    let row = |task: &str, group: &str, x: &Scores, i: Option<&ScoreIntervals>| {
        let st = statistics.and_then(|all| {
            let task = if task == "both" { "both" } else { task };
            all.iter().find(|r| r.task == task && r.domain == group)
        });
        let i = st.map(|r| &r.intervals).or(i);
        let star = if st.is_some_and(|r| r.verdict.significant) {
            " *"
        } else {
            ""
        };
        vec![
            task.to_owned(),
            group.to_owned(),
            x.n_items.to_string(),
            format!("{}{star}", cell(x.ss, i.map(|i| i.ss))),
            st.map_or_else(
                || "–".to_owned(),
                |r| {
                    format!(
                        "{} ({})",
                        p_text(r.verdict.p_value),
                        p_text(r.verdict.p_adjusted)
                    )
                },
            ),
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
    let tests = statistics.map_or_else(String::new, |all| {
        format!(
            "\nSS p (adjusted p): a sign-flip permutation test of |SS − 50| (each item's \
             stereotype and anti-stereotype swapped at random; {} flip sets); * = {}.",
            PermutationOptions::default().permutations,
            FamilyOptions::default().describe(all.len())
        )
    });
    vec![TaskTable {
        title: format!("StereoSet {split}, {model}"),
        headers: vec![
            "task",
            "domain",
            "items",
            "SS",
            "SS p (adj.)",
            "LMS",
            "ICAT",
        ],
        rows,
        note: format!(
            "Intersentence scored by {}.\n[a, b]: {:.0} % percentile bootstrap interval ({} \
             replicates, seed {}, items resampled within task and domain; a domain's row from its \
             own items).\nDirection: SS 50 = no bias, above 50 = prefers \
             the stereotype; LMS higher is better (100 = always prefers a meaningful sentence); \
             ICAT 100 = unbiased and always meaningful.{tests}",
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
