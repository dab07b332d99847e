//! schroeder2024's Figures 1–3 (sample-wise and aggregated cosine scores against PLL, test–retest deviations).

use super::*;
use crate::PaperError;

/// One colour per score in every figure.
pub(super) fn score_colour(score: &str) -> usize {
    SCORES.iter().position(|s| *s == score).unwrap_or(0)
}

pub(super) fn write_csv(
    path: &Path,
    header: &[&str],
    rows: &[Vec<String>],
) -> Result<(), PaperError> {
    let io = |e: csv::Error| RobustError::Io {
        action: "write",
        path: path.to_owned(),
        source: std::io::Error::other(e.to_string()),
    };
    let mut w = csv::Writer::from_path(path).map_err(io)?;
    w.write_record(header).map_err(io)?;
    for r in rows {
        w.write_record(r).map_err(io)?;
    }
    w.flush().map_err(|source| {
        PaperError::from(RobustError::Io {
            action: "write",
            path: path.to_owned(),
            source,
        })
    })
}

/// One model's Figure 1 correlation for one score: `(pairs, r, p)`, `None` for r and p when it
/// is undefined (a missing per-pair score, fewer than 3 pairs, or no spread).
pub(super) fn figure1_r(
    r: &TypeScores,
    score: &str,
    reading: Figure1Reading,
) -> Option<(usize, f64, f64)> {
    let (xs, ys): (Vec<f64>, Vec<Option<f64>>) = match reading {
        Figure1Reading::AuthorsCode => r
            .samples
            .iter()
            .map(|s| {
                let y = match score {
                    "SAME" => s.same_pair,
                    "WEAT" => Some(s.weat_pair),
                    _ => Some(s.direct_bias_pair),
                };
                (s.pll_difference.abs(), y.map(f64::abs))
            })
            .unzip(),
        Figure1Reading::Signed => r
            .samples
            .iter()
            .map(|s| (s.pll_difference, sample_of(s, score)))
            .unzip(),
    };
    let ys: Vec<f64> = ys.into_iter().collect::<Option<_>>()?;
    let c = bias_metrics::stats::pearson(&ys, &xs).ok()?;
    (c.statistic.is_finite() && c.p_value.is_finite()).then_some((xs.len(), c.statistic, c.p_value))
}

pub(super) fn figure1(
    results: &[Vec<Option<TypeScores>>],
    names: &[String],
    sets: &[DefiningSets],
    options: &SchroederOptions,
    settings: &str,
    models_note: &str,
    out: &mut Reproduction,
) -> Result<(), PaperError> {
    let reading = options.figure1;
    let mut panels = Vec::new();
    let mut rows = Vec::new();
    for (t, s) in sets.iter().enumerate() {
        let mut series = Vec::new();
        let mut faint = Vec::new();
        for (k, score) in ["SAME", "WEAT", "DirectBias"].into_iter().enumerate() {
            // The authors compute WEAT's per-sample scores for two groups only.
            if score == "WEAT" && s.groups.len() != 2 {
                continue;
            }
            let mut pts = Vec::new();
            for (m, per_type) in results.iter().enumerate() {
                let Some(r) = &per_type[t] else { continue };
                let found = figure1_r(r, score, reading);
                let drawn = match (reading, found) {
                    (Figure1Reading::AuthorsCode, Some((_, _, p))) => p < 0.05,
                    (Figure1Reading::Signed, Some(_)) => true,
                    (_, None) => false,
                };
                match (drawn, found) {
                    (true, Some((_, c, _))) => pts.push((k as f64 + 0.1 * m as f64, c)),
                    (false, Some((_, c, _))) => faint.push((k as f64 + 0.1 * m as f64, c)),
                    _ => {}
                }
                rows.push(vec![
                    s.bias_type.to_string(),
                    names[m].clone(),
                    score.to_owned(),
                    reading.label().to_owned(),
                    r.samples.len().to_string(),
                    found.map_or(String::new(), |(_, c, _)| format!("{c}")),
                    found.map_or(String::new(), |(_, _, p)| format!("{p}")),
                    drawn.to_string(),
                ]);
            }
            if !pts.is_empty() {
                series.push(PointSeries {
                    name: score.into(),
                    points: pts,
                    colour: Some(score_colour(score)),
                });
            }
        }
        if !faint.is_empty() {
            series.push(PointSeries {
                name: "p ≥ 0.05 (left out of the authors' figure)".into(),
                points: faint,
                colour: Some(NOT_SIGNIFICANT_COLOUR),
            });
        }
        if !series.is_empty() {
            panels.push(PointPanel {
                title: s.bias_type.to_string(),
                x_label: "score (0 SAME, 1 WEAT, 2 DirectBias), models side by side".into(),
                y_label: "Pearson r with the PLL difference".into(),
                series,
                lines: false,
            });
        }
    }
    let quantity = match reading {
        Figure1Reading::AuthorsCode => {
            "|score on the pair's own two groups| against |PLL difference|; the authors' \
             notebook keeps the models with p < 0.05 (in colour; the others in grey, although \
             the caption says \"including those models with p > 0.05\")"
        }
        Figure1Reading::Signed => {
            "signed all-group per-sample score against the signed PLL difference, every model \
             drawn (--schroeder2024-figure1 signed)"
        }
    };
    let title = format!(
        "Pearson r of sample-wise cosine scores with the PLL difference per model (right half): \
         {quantity}; every r in figure-1.csv"
    );
    write_csv(
        &out.dir().join("figure-1.csv"),
        &[
            "attribute",
            "model",
            "score",
            "reading",
            "pairs",
            "r",
            "p",
            "drawn",
        ],
        &rows,
    )?;
    if panels.is_empty() {
        out.out_of_reach(
            "figure-1",
            &title,
            "no model's r is defined (a missing per-pair score, or no spread); see figure-1.csv",
        );
        return Ok(());
    }
    point_panels(&panels, out.figure_stem("figure-1"))?;
    out.figure(
        "figure-1",
        &title,
        Status::Substitute(format!(
            "right half on every attribute (the paper shows religion), {models_note}; left half \
             (class-wise TPR gap on BIOS) out of reach: {BIOS_JIGSAW}. {settings}"
        )),
    );
    Ok(())
}

pub(super) fn figure2(
    results: &[Vec<Option<TypeScores>>],
    sets: &[DefiningSets],
    settings: &str,
    models_note: &str,
    out: &mut Reproduction,
) -> Result<(), PaperError> {
    let mut panels = Vec::new();
    let mut rows = Vec::new();
    for (t, s) in sets.iter().enumerate() {
        let mut series = Vec::new();
        for score in SCORES {
            let pts: Vec<(f64, f64)> = results
                .iter()
                .filter_map(|per_type| per_type[t].as_ref())
                .filter_map(|r| score_of(r, score).map(|v| (v, r.cps_bias)))
                .collect();
            if pts.is_empty() {
                continue;
            }
            let (xs, ys): (Vec<f64>, Vec<f64>) = pts.iter().copied().unzip();
            let r = bias_metrics::stats::pearson(&xs, &ys).ok();
            let field = |f: fn(&bias_metrics::stats::Correlation) -> f64| {
                r.as_ref().map_or(String::new(), |c| format!("{}", f(c)))
            };
            rows.push(vec![
                s.bias_type.to_string(),
                score.to_owned(),
                pts.len().to_string(),
                field(|c| c.statistic),
                field(|c| c.p_value),
            ]);
            let name = match r {
                Some(c) => format!("{score} (r = {:.2}, p = {:.2})", c.statistic, c.p_value),
                None => format!("{score} (r needs 3 models)"),
            };
            series.push(PointSeries {
                name,
                points: pts,
                colour: Some(score_colour(score)),
            });
        }
        if !series.is_empty() {
            panels.push(PointPanel {
                title: s.bias_type.to_string(),
                x_label: "aggregated cosine score".into(),
                y_label: "CPS bias (% stereotypical more likely)".into(),
                series,
                lines: false,
            });
        }
    }
    let title = "Aggregated cosine scores against the CPS bias over models (data: figure-2.csv)";
    if panels.is_empty() {
        out.out_of_reach("figure-2", title, "no model has a kept pair to score");
        return Ok(());
    }
    point_panels(&panels, out.figure_stem("figure-2"))?;
    write_csv(
        &out.dir().join("figure-2.csv"),
        &["attribute", "score", "models", "r", "p"],
        &rows,
    )?;
    out.figure(
        "figure-2",
        title,
        Status::Substitute(format!(
            "every attribute (the paper shows religion, SAME and DirectBias), {models_note}; r \
             needs at least 3 models. {settings}"
        )),
    );
    Ok(())
}

/// The test–retest study of every model that embeds the gender targets of type `t`, one share
/// at a time (a share where every subset fails is reported, not fatal). Returns the results and
/// the number of targets of each model.
pub(super) fn retest_models(
    names: &[String],
    results: &[Vec<Option<TypeScores>>],
    t: usize,
    options: &SchroederOptions,
    retest: &RetestOptions,
) -> Result<(PerScore, Vec<usize>), PaperError> {
    // per[score][model] = one result per share.
    let mut per: PerScore = Default::default();
    let mut n_targets = Vec::new();
    for (i, per_type) in results.iter().enumerate() {
        let Some(r) = &per_type[t] else { continue };
        let name = names[i].clone();
        let (targets, groups) = (&r.target_embeddings, &r.group_embeddings);
        n_targets.push(r.samples.len());
        let subspace = subspace_of(groups, &[0, 1], 1, options.subspace, "gender")?;
        let class: Vec<usize> = (0..r.samples.len()).collect();
        let group: Vec<usize> = r.samples.iter().map(|s| s.target_group).collect();
        let labels = TargetLabels::new(&class, &group)?;
        for (k, per_score) in per.iter_mut().enumerate() {
            let mut shares = Vec::new();
            for &share in &retest.shares {
                let one = RetestOptions {
                    shares: vec![share],
                    ..retest.clone()
                };
                let report = match k {
                    0 => {
                        retest_same_binary(targets.view(), groups[0].view(), groups[1].view(), &one)
                    }
                    1 => retest_weat(
                        targets.view(),
                        &labels,
                        groups[0].view(),
                        groups[1].view(),
                        options.ddof,
                        WeatSplit::PerSubset,
                        &one,
                    ),
                    _ => retest_direct_bias(targets.view(), &subspace, options.c, &one),
                };
                shares.push(match report {
                    Ok(mut rep) => Ok(rep.shares.remove(0)),
                    Err(e) => Err(e.to_string()),
                });
            }
            per_score.push((name.clone(), shares));
        }
    }
    Ok((per, n_targets))
}

/// Pools every model's deviations per score and share as the authors' `robustness.py` does
/// (mean and population sd over all models' subsets), counting the failed subsets.
pub(super) fn pool_models(per: &PerScore, retest: &RetestOptions, n_targets: &[usize]) -> Pooled {
    let mut rows = Vec::new();
    let mut series = Vec::new();
    let mut failures = Vec::new();
    for (k, label) in ["SAME", "WEAT", "DirectBias"].into_iter().enumerate() {
        let (mut mean_pts, mut lo_pts, mut hi_pts) = (Vec::new(), Vec::new(), Vec::new());
        for (j, &share) in retest.shares.iter().enumerate() {
            let mut ok = Vec::new();
            let mut failed = 0;
            for (model, shares) in &per[k] {
                match &shares[j] {
                    Ok(d) => {
                        failed += d.failed;
                        rows.push(share_row(label, model, share, d));
                        ok.push(d);
                    }
                    Err(e) => {
                        failed += retest.repeats;
                        rows.push(vec![
                            label.to_owned(),
                            model.clone(),
                            format!("{share}"),
                            retest.subset_len(n_targets[0], share).to_string(),
                            "0".into(),
                            retest.repeats.to_string(),
                            String::new(),
                            String::new(),
                            e.clone(),
                        ]);
                    }
                }
            }
            if failed > 0 {
                failures.push(format!(
                    "{label} at {:.0} %: {failed} of {} subsets failed",
                    100.0 * share,
                    retest.repeats * per[k].len()
                ));
            }
            let Ok(pooled) = bias_robust::pool_deviations(&ok) else {
                continue;
            };
            let n = pooled.n as f64;
            // numpy's np.std (population) of the pooled deviations, as robustness.py.
            let sd = if pooled.n > 1 {
                pooled.sd * ((n - 1.0) / n).sqrt()
            } else {
                0.0
            };
            rows.push(vec![
                label.to_owned(),
                "all models".into(),
                format!("{share}"),
                String::new(),
                pooled.n.to_string(),
                failed.to_string(),
                format!("{}", pooled.mean),
                format!("{sd}"),
                String::new(),
            ]);
            let x = 100.0 * share;
            mean_pts.push((x, pooled.mean));
            lo_pts.push((x, pooled.mean - sd));
            hi_pts.push((x, pooled.mean + sd));
        }
        if mean_pts.is_empty() {
            continue;
        }
        let colour = Some(score_colour(label));
        series.push(PointSeries {
            name: label.into(),
            points: mean_pts,
            colour,
        });
        for (bound, pts) in [("− 1 sd", lo_pts), ("+ 1 sd", hi_pts)] {
            series.push(PointSeries {
                name: format!("{label} {bound}"),
                points: pts,
                colour,
            });
        }
    }
    (rows, series, failures)
}

/// Figure 3 on substitute data: the test–retest study (§4.1.3) of SAME, WEAT and DirectBias on
/// the neutral CrowS-Pairs gender targets of every model that embeds them, the deviations pooled
/// over the models as the authors' `robustness.py` pools them (mean and population sd per share,
/// over every model's subsets), each share's failures counted.
pub(super) fn figure3(
    names: &[String],
    results: &[Vec<Option<TypeScores>>],
    sets: &[DefiningSets],
    options: &SchroederOptions,
    out: &mut Reproduction,
    models_note: &str,
) -> Result<(), PaperError> {
    let title = "Deviation of bias scores on random subsets of the targets (data: figure-3.csv)";
    let Some(t) = sets.iter().position(|s| s.bias_type == BiasType::Gender) else {
        out.out_of_reach("figure-3", title, "the defining sets have no gender type");
        return Ok(());
    };
    let retest = RetestOptions {
        skip_failures: true,
        ..options.retest.clone()
    };
    let (per, n_targets) = retest_models(names, results, t, options, &retest)?;
    if n_targets.is_empty() {
        out.out_of_reach(
            "figure-3",
            title,
            "no model embeds the kept CrowS-Pairs gender targets (BIOS itself is out of reach)",
        );
        return Ok(());
    }
    let (rows, series, failures) = pool_models(&per, &retest, &n_targets);
    write_csv(
        &out.dir().join("figure-3.csv"),
        &[
            "score",
            "model",
            "share",
            "subset size",
            "evaluated",
            "failed",
            "mean abs deviation",
            "sd",
            "error",
        ],
        &rows,
    )?;
    if series.is_empty() {
        out.out_of_reach("figure-3", title, "every subset failed; see figure-3.csv");
        return Ok(());
    }
    let without: Vec<PointSeries> = series
        .iter()
        .filter(|s| !s.name.starts_with("WEAT"))
        .cloned()
        .collect();
    let panel = |title: &str, series: Vec<PointSeries>| PointPanel {
        title: title.into(),
        x_label: "% of the targets".into(),
        y_label: "mean absolute deviation (normalised), ± 1 sd over models".into(),
        series,
        lines: true,
    };
    point_panels(
        &[panel("all scores", series), panel("without WEAT", without)],
        out.figure_stem("figure-3"),
    )?;
    let failed_note = if failures.is_empty() {
        "no subset failed".to_owned()
    } else {
        format!(
            "failed subsets are left out of the mean: {}",
            failures.join("; ")
        )
    };
    out.figure(
        "figure-3",
        title,
        Status::Substitute(format!(
            "the {} neutral CrowS-Pairs gender targets of each of {} model(s) instead of the \
             10,602 BIOS bios ({BIOS_JIGSAW}); WEAT's X/Y are the targets' groups; shares {:?}, \
             {} repeats, {:?} (the authors' robustness.py: 0.01/0.03/0.05/0.1/0.2, 50 nested \
             prefixes); {failed_note}; {models_note}",
            n_targets
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("/"),
            n_targets.len(),
            retest.shares,
            retest.repeats,
            retest.draw,
        )),
    );
    Ok(())
}
