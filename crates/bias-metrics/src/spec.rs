//! One specification of a bias measure and its settings, written as text (`indicator`, `kls`,
//! `jss`, `jss-paper`) or as data (serde), that builds the measure: what every command, example
//! and study names a measure with.

use std::fmt;
use std::str::FromStr;

use bias_core::{BiasMeasure, Measurement, ScoreTable};
use serde::{Deserialize, Serialize};

use crate::{
    DistributionOptions, Indicator, IndicatorOptions, Jss, JssVariant, Kls, MetricsError, Rounding,
};

/// A bias measure on a score table, with its settings.
///
/// - `indicator`: percentage of pairs whose stereotypical sentence scores higher (Nangia et al.
///   2020; liu2024 Eq. 2);
/// - `kls`: the Kullback–Leibler divergence score (liu2024 Eq. 6);
/// - `jss`: the Jensen–Shannon divergence score as the authors' code computes it (liu2024 Eq. 9;
///   it produced the published numbers); `jss-paper`: as the paper's text defines it.
///
/// ```
/// use bias_metrics::MeasureSpec;
///
/// let specs: Vec<MeasureSpec> = "indicator,kls,jss"
///     .split(',')
///     .map(str::parse)
///     .collect::<Result<_, _>>()?;
/// assert_eq!(specs, MeasureSpec::liu2024().to_vec());
/// assert_eq!(specs[2].to_string(), "jss");
/// let json = serde_json::to_string(&specs[1])?;
/// assert_eq!(serde_json::from_str::<MeasureSpec>(&json)?, specs[1]);
/// let measure = specs[0].build();
/// assert_eq!(measure.name(), "indicator");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "measure", rename_all = "kebab-case")]
pub enum MeasureSpec {
    /// The indicator measure.
    Indicator {
        /// Tie handling and rounding.
        #[serde(default)]
        options: IndicatorOptions,
    },
    /// KLS.
    Kls {
        /// Aggregation over bias types, rounding, small types.
        #[serde(default)]
        options: DistributionOptions,
    },
    /// JSS.
    Jss {
        /// The authors' code or the paper's text.
        #[serde(default)]
        variant: JssVariant,
        /// Aggregation over bias types, rounding, small types.
        #[serde(default)]
        options: DistributionOptions,
    },
}

impl MeasureSpec {
    /// The indicator with default options.
    pub const INDICATOR: MeasureSpec = MeasureSpec::Indicator {
        options: IndicatorOptions {
            ties: crate::TieHandling::NotStereotypical,
            rounding: Rounding::None,
        },
    };

    /// The three measures of liu2024, with the authors' defaults: indicator, KLS, JSS.
    pub fn liu2024() -> [MeasureSpec; 3] {
        let options = DistributionOptions::default();
        [
            MeasureSpec::INDICATOR,
            MeasureSpec::Kls { options },
            MeasureSpec::Jss {
                variant: JssVariant::AuthorsCode,
                options,
            },
        ]
    }

    /// The measure's name, as [`BiasMeasure::name`] reports it (`indicator`, `kls`, `jss`,
    /// `jss-paper`).
    pub fn name(&self) -> &'static str {
        match self {
            MeasureSpec::Indicator { .. } => "indicator",
            MeasureSpec::Kls { .. } => "kls",
            MeasureSpec::Jss {
                variant: JssVariant::PaperText,
                ..
            } => "jss-paper",
            MeasureSpec::Jss { .. } => "jss",
        }
    }

    /// Whether the measure fits Gaussians to the scores (KLS, JSS): such measures need scores on
    /// a scale where a Gaussian fits (liu2024 uses AUL).
    pub fn is_distributional(&self) -> bool {
        !matches!(self, MeasureSpec::Indicator { .. })
    }

    /// The same measure with other distribution options (KLS and JSS; the indicator keeps its
    /// own, but takes the rounding).
    pub fn with_distribution(self, options: DistributionOptions) -> Self {
        match self {
            MeasureSpec::Indicator { options: o } => MeasureSpec::Indicator {
                options: IndicatorOptions {
                    rounding: options.rounding,
                    ..o
                },
            },
            MeasureSpec::Kls { .. } => MeasureSpec::Kls { options },
            MeasureSpec::Jss { variant, .. } => MeasureSpec::Jss { variant, options },
        }
    }

    /// The same measure with its value rounded as `rounding` says (its other options kept).
    pub fn with_rounding(self, rounding: Rounding) -> Self {
        match self {
            MeasureSpec::Indicator { options } => MeasureSpec::Indicator {
                options: IndicatorOptions {
                    rounding,
                    ..options
                },
            },
            MeasureSpec::Kls { options } => MeasureSpec::Kls {
                options: DistributionOptions {
                    rounding,
                    ..options
                },
            },
            MeasureSpec::Jss { variant, options } => MeasureSpec::Jss {
                variant,
                options: DistributionOptions {
                    rounding,
                    ..options
                },
            },
        }
    }

    /// The same measure with other indicator options (the others are unchanged).
    pub fn with_indicator(self, options: IndicatorOptions) -> Self {
        match self {
            MeasureSpec::Indicator { .. } => MeasureSpec::Indicator { options },
            other => other,
        }
    }

    /// Builds the measure as a trait object (a [`MeasureSpec`] is itself a [`BiasMeasure`]).
    pub fn build(&self) -> Box<dyn BiasMeasure<Error = MetricsError> + Send + Sync> {
        Box::new(*self)
    }

    /// Computes the measure on `table` (as `self.build().measure(table)`).
    ///
    /// # Errors
    /// The measure's: an empty table, a bias type with too few pairs for a Gaussian, ...
    pub fn measure(&self, table: &ScoreTable) -> Result<Measurement, MetricsError> {
        match *self {
            MeasureSpec::Indicator { options } => Indicator::new(options).measure(table),
            MeasureSpec::Kls { options } => Kls::new(options).measure(table),
            MeasureSpec::Jss { variant, options } => Jss::new(variant, options).measure(table),
        }
    }
}

impl Default for MeasureSpec {
    fn default() -> Self {
        MeasureSpec::INDICATOR
    }
}

impl BiasMeasure for MeasureSpec {
    type Error = MetricsError;

    fn name(&self) -> &str {
        MeasureSpec::name(self)
    }

    fn measure(&self, table: &ScoreTable) -> Result<Measurement, MetricsError> {
        MeasureSpec::measure(self, table)
    }
}

impl fmt::Display for MeasureSpec {
    /// The name, which [`MeasureSpec::from_str`] reads back (settings other than the JSS
    /// variant are not written).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for MeasureSpec {
    type Err = MetricsError;

    /// `indicator`, `kls`, `jss` (the authors' code) or `jss-paper`, with default settings
    /// (case and `_` / `-` are ignored).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let norm = s.trim().to_ascii_lowercase().replace('_', "-");
        let options = DistributionOptions::default();
        Ok(match norm.as_str() {
            "indicator" => MeasureSpec::INDICATOR,
            "kls" => MeasureSpec::Kls { options },
            "jss" | "jss-authors" => MeasureSpec::Jss {
                variant: JssVariant::AuthorsCode,
                options,
            },
            "jss-paper" => MeasureSpec::Jss {
                variant: JssVariant::PaperText,
                options,
            },
            _ => {
                return Err(MetricsError::InvalidParameter {
                    name: "measure".into(),
                    value: s.to_owned(),
                    expected: "indicator, kls, jss or jss-paper".into(),
                })
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bias_core::{BiasType, Direction, ScoreRow};

    fn table() -> ScoreTable {
        let row = |id: usize, ty: BiasType, s: f64, a: f64| ScoreRow {
            pair_id: id.to_string(),
            dataset: "d".into(),
            bias_type: ty,
            direction: Direction::Stereo,
            stereo: "s".into(),
            anti: "a".into(),
            score_stereo: s,
            score_anti: a,
            scorer: "aul".into(),
            model: "m".into(),
            tokens_stereo: None,
            tokens_anti: None,
            group_id: None,
        };
        ScoreTable::new(vec![
            row(0, BiasType::Gender, -1.0, -2.0),
            row(1, BiasType::Gender, -3.0, -2.5),
            row(2, BiasType::Gender, -2.0, -1.0),
            row(3, BiasType::Age, -1.5, -1.6),
            row(4, BiasType::Age, -2.2, -2.0),
        ])
    }

    #[test]
    fn each_spec_builds_the_measure_it_names() {
        let t = table();
        let options = DistributionOptions::default();
        for spec in MeasureSpec::liu2024() {
            let built = spec.build().measure(&t).unwrap();
            let direct = match spec {
                MeasureSpec::Indicator { .. } => Indicator::default().measure(&t),
                MeasureSpec::Kls { .. } => Kls::new(options).measure(&t),
                MeasureSpec::Jss { .. } => Jss::new(JssVariant::AuthorsCode, options).measure(&t),
            }
            .unwrap();
            assert_eq!(built, direct);
            assert_eq!(built.measure, spec.name());
        }
        // Two of five pairs prefer the stereotypical sentence.
        assert_eq!(MeasureSpec::INDICATOR.measure(&t).unwrap().value, 40.0);
    }

    #[test]
    fn text_round_trips_and_unknown_names_are_errors() {
        for text in ["indicator", "kls", "jss", "jss-paper"] {
            let spec: MeasureSpec = text.parse().unwrap();
            assert_eq!(spec.to_string(), text);
        }
        assert_eq!(
            "JSS_Paper".parse::<MeasureSpec>().unwrap().to_string(),
            "jss-paper"
        );
        let err = "sss".parse::<MeasureSpec>().unwrap_err();
        assert!(
            err.to_string().contains("indicator, kls, jss or jss-paper"),
            "{err}"
        );
    }

    #[test]
    fn json_names_the_measure_and_fills_defaults() {
        let spec: MeasureSpec = serde_json::from_str(r#"{"measure": "kls"}"#).unwrap();
        assert_eq!(spec, "kls".parse().unwrap());
        let json = serde_json::to_value(MeasureSpec::liu2024()[2]).unwrap();
        assert_eq!(json["measure"], "jss");
        assert_eq!(json["variant"], "AuthorsCode");
    }
}
