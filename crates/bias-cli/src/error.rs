//! The CLI's error type: every library error, plus output failures.

/// Anything that stops a command.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// From the shared layer (reading a score table).
    #[error(transparent)]
    Core(#[from] bias_core::CoreError),
    /// From the data layer (reading a data set).
    #[error(transparent)]
    Data(#[from] bias_data::DataError),
    /// From a measure or statistic.
    #[error(transparent)]
    Metrics(#[from] bias_metrics::MetricsError),
    /// A benchmark task failed.
    #[error(transparent)]
    Task(#[from] bias_tasks::TaskError),
    /// From the robustness analyses.
    #[error(transparent)]
    Robust(Box<bias_robust::RobustError>),
    /// From the figures and the report.
    #[error(transparent)]
    Report(Box<bias_report::ReportError>),
    /// From a reproduction (a variant that is neither a study's nor the report's).
    #[error(transparent)]
    Paper(Box<bias_papers::PaperError>),
    /// From the embedding layer.
    #[error(transparent)]
    Embed(Box<bias_embed::EmbedError>),
    /// From the model layer (loading, scoring).
    #[error(transparent)]
    Plm(#[from] Box<bias_plm::PlmError>),
    /// A measure failed on one slice of a score table.
    #[error("{scores}: {slice}")]
    InSlice {
        /// The score table.
        scores: std::path::PathBuf,
        /// Which (dataset, scorer, model) slice.
        slice: String,
        /// What went wrong (boxed: the error stays small on the happy path).
        #[source]
        source: Box<bias_metrics::MetricsError>,
    },
    /// A scoring run failed.
    #[error(transparent)]
    Run(#[from] bias_core::RunError),
    /// A pair of a data file cannot be scored (found before anything was scored).
    #[error("{place}: this sentence cannot be scored")]
    UnscorableLine {
        /// The file and line of the sentence ([`bias_data::Origin`]).
        place: String,
        /// The run's refusal, naming the pair (boxed: the error stays small).
        #[source]
        source: Box<bias_core::RunError>,
    },
    /// Shards could not be merged (boxed: the error stays small on the happy path).
    #[error(transparent)]
    Merge(#[from] Box<bias_core::run::MergeError>),
    /// Writing to standard output failed.
    #[error("writing output")]
    Output(#[from] std::io::Error),
    /// Serialising or parsing JSON failed.
    #[error("JSON")]
    Json(#[from] serde_json::Error),
    /// Writing CSV failed.
    #[error("CSV")]
    Csv(#[from] csv::Error),
    /// An argument combination that cannot work.
    #[error("{0}")]
    Usage(String),
}

impl From<bias_core::run::MergeError> for CliError {
    fn from(e: bias_core::run::MergeError) -> Self {
        CliError::Merge(Box::new(e))
    }
}

impl CliError {
    /// What to type to get past the error, where the CLI knows (the library errors say what is
    /// wrong; the flags are the CLI's).
    pub fn hint(&self) -> Option<String> {
        /// A distribution measure refusing a bias type with a single pair.
        fn small_type(e: &bias_metrics::MetricsError) -> bool {
            matches!(e, bias_metrics::MetricsError::SmallBiasType { .. })
        }
        /// A sentence longer than the model accepts.
        fn too_long(e: &(dyn std::error::Error + Send + Sync + 'static)) -> bool {
            matches!(
                e.downcast_ref::<bias_plm::PlmError>(),
                Some(bias_plm::PlmError::TooLong { .. })
            )
        }
        const SMALL_TYPES_HINT: &str = "pass --small-types skip to leave such bias types out";
        match self {
            CliError::Run(bias_core::RunError::ResumeMismatch { out, .. }) => Some(format!(
                "write to another --out, or delete {} and {} to start again",
                out.display(),
                bias_core::run::progress_path(out).display()
            )),
            CliError::Run(
                bias_core::RunError::Scorer { source, .. }
                | bias_core::RunError::Unscorable { source, .. },
            ) if too_long(&**source) => {
                Some("pass --truncate to keep the first tokens of long sentences".to_owned())
            }
            CliError::UnscorableLine { source, .. }
                if matches!(&**source, bias_core::RunError::Unscorable { source, .. }
                    if too_long(&**source)) =>
            {
                Some(
                    "shorten or remove that line, or pass --truncate to keep the first tokens of \
                     long sentences"
                        .to_owned(),
                )
            }
            CliError::Plm(e) if matches!(**e, bias_plm::PlmError::TooLong { .. }) => {
                Some("pass --truncate to keep the first tokens of long sentences".to_owned())
            }
            CliError::Plm(e) if matches!(**e, bias_plm::PlmError::CudaUnavailable { .. }) => {
                Some("pass --device cpu (or auto)".to_owned())
            }
            CliError::Data(bias_data::DataError::NotEnoughSentences { .. }) => {
                Some("lower --sentences, or give a larger --corpus".to_owned())
            }
            CliError::Data(bias_data::DataError::InvalidGroups { .. }) => Some(
                "pass --groups G0,G1 with the two groups, the group of attribute set A first"
                    .to_owned(),
            ),
            CliError::Plm(e) if matches!(**e, bias_plm::PlmError::ScorerNotForModel { .. }) => {
                match &**e {
                    bias_plm::PlmError::ScorerNotForModel { supported, .. } => Some(format!(
                        "pass --scorers {}, or leave --scorers out for the model's defaults",
                        supported.replace(", ", ",")
                    )),
                    _ => None,
                }
            }
            CliError::Plm(e) if matches!(**e, bias_plm::PlmError::HalfOnCpu(_)) => Some(
                "pass --dtype f32 (or bf16), or --device cuda on a machine with a GPU".to_owned(),
            ),
            CliError::Plm(e) if matches!(**e, bias_plm::PlmError::HeadExists { .. }) => {
                Some("leave out --new-mlm-head to fine-tune the model's own head".to_owned())
            }
            CliError::Robust(e)
                if matches!(
                    **e,
                    bias_robust::RobustError::EmptyWeatSide { subset: true, .. }
                ) =>
            {
                Some(
                    "pass --skip-failures to count such subsets in the `failed` column and \
                     leave them out"
                        .to_owned(),
                )
            }
            CliError::Metrics(e) if small_type(e) => Some(SMALL_TYPES_HINT.to_owned()),
            CliError::InSlice { source, .. } if small_type(source) => {
                Some(SMALL_TYPES_HINT.to_owned())
            }
            _ => None,
        }
    }

    /// The process exit code: 2 for a usage error (as clap's; a scorer the model does not have
    /// is one), 1 for any other failure.
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Usage(_) => 2,
            CliError::Plm(e) if matches!(**e, bias_plm::PlmError::ScorerNotForModel { .. }) => 2,
            _ => 1,
        }
    }
}

impl From<bias_plm::PlmError> for CliError {
    fn from(e: bias_plm::PlmError) -> Self {
        CliError::Plm(Box::new(e))
    }
}

impl From<bias_robust::RobustError> for CliError {
    fn from(e: bias_robust::RobustError) -> Self {
        CliError::Robust(Box::new(e))
    }
}

/// A study's error passed on by the report stays a study's error (its hints apply).
impl From<bias_report::ReportError> for CliError {
    fn from(e: bias_report::ReportError) -> Self {
        match e {
            bias_report::ReportError::Robust(e) => e.into(),
            e => CliError::Report(Box::new(e)),
        }
    }
}

/// A reproduction fails as a study or as its report does.
impl From<bias_papers::PaperError> for CliError {
    fn from(e: bias_papers::PaperError) -> Self {
        match e {
            bias_papers::PaperError::Robust(e) => e.into(),
            bias_papers::PaperError::Report(e) => e.into(),
            // A list the paper cannot take: the user's to change, as a bad flag is.
            e @ bias_papers::PaperError::MaskedOnly { .. } => CliError::Usage(e.to_string()),
            e => CliError::Paper(Box::new(e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hints recognise errors by variant: a message that merely mentions the remedy gets
    /// none.
    #[test]
    fn hints_follow_the_variant_not_the_text() {
        let head = CliError::Plm(Box::new(bias_plm::PlmError::HeadExists {
            base: "m".into(),
        }));
        assert!(head.hint().unwrap().contains("--new-mlm-head"));
        let text_only = CliError::Plm(Box::new(bias_plm::PlmError::Training(
            "m already has a masked-LM head".into(),
        )));
        assert_eq!(text_only.hint(), None);
        let small = CliError::Metrics(bias_metrics::MetricsError::SmallBiasType {
            measure: "kls".into(),
            bias_type: bias_core::BiasType::Age,
            got: 1,
        });
        assert!(small.hint().unwrap().contains("--small-types skip"));
        let too_few = CliError::Metrics(bias_metrics::MetricsError::TooFew {
            what: "kls: SmallTypePolicy::Skip".into(),
            needed: 2,
            got: 1,
        });
        assert_eq!(too_few.hint(), None);
    }
}
