//! The identities a score table records, as types: the scorer, the data set and the model of
//! every row. Each is a name (a custom scorer or a user's data set keeps its own), but a
//! scorer's name cannot be handed where a model's is wanted.

use std::borrow::Borrow;
use std::fmt;
use std::ops::Deref;

use serde::{Deserialize, Serialize};

use crate::Scorer;

macro_rules! name_type {
    ($(#[$meta:meta])* $name:ident) => {
        $(#[$meta])*
        #[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(String);

        impl $name {
            /// The name `name`.
            pub fn new(name: impl Into<String>) -> Self {
                $name(name.into())
            }

            /// The name as text.
            pub fn as_str(&self) -> &str {
                &self.0
            }

            /// The name's text.
            pub fn into_string(self) -> String {
                self.0
            }
        }

        impl Deref for $name {
            type Target = str;
            fn deref(&self) -> &str {
                &self.0
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        impl Borrow<str> for $name {
            fn borrow(&self) -> &str {
                &self.0
            }
        }

        /// As the text's own (`"aul"`), so that messages read as they did when names were text.
        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(&self.0, f)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl From<&str> for $name {
            fn from(s: &str) -> Self {
                $name(s.to_owned())
            }
        }

        impl From<String> for $name {
            fn from(s: String) -> Self {
                $name(s)
            }
        }

        impl From<&String> for $name {
            fn from(s: &String) -> Self {
                $name(s.clone())
            }
        }

        impl From<&$name> for $name {
            fn from(s: &$name) -> Self {
                s.clone()
            }
        }

        impl From<$name> for String {
            fn from(s: $name) -> Self {
                s.0
            }
        }

        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                self.0 == other
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.0 == *other
            }
        }

        impl PartialEq<String> for $name {
            fn eq(&self, other: &String) -> bool {
                &self.0 == other
            }
        }

        impl PartialEq<$name> for str {
            fn eq(&self, other: &$name) -> bool {
                self == other.0
            }
        }

        impl PartialEq<$name> for &str {
            fn eq(&self, other: &$name) -> bool {
                *self == other.0
            }
        }

        impl PartialEq<$name> for String {
            fn eq(&self, other: &$name) -> bool {
                *self == other.0
            }
        }
    };
}

name_type!(
    /// A scorer's name, as a score table's `scorer` column holds it: one of the workspace's
    /// scorers ([`Scorer::name`]: `aul`, `cps`, `ll-sum`, ...) or a custom scorer's own
    /// ([`crate::PairScorer::scorer_names`]).
    ScorerName
);

name_type!(
    /// A data set's label, as a score table's `dataset` column holds it: `crows-pairs`,
    /// `stereoset`, `winobias-type1-dev`, ... or a user's pair file's own.
    DatasetName
);

name_type!(
    /// A model's name, as a score table's `model` column holds it: its folder's name, its
    /// Hugging Face id, or the name a run gave it.
    ModelName
);

impl ScorerName {
    /// The workspace scorer of this name, if it is one (spelled as [`Scorer::name`] spells it).
    pub fn known(&self) -> Option<Scorer> {
        Scorer::ALL.into_iter().find(|s| s.name() == self.0)
    }
}

impl From<Scorer> for ScorerName {
    fn from(s: Scorer) -> Self {
        ScorerName(s.name().to_owned())
    }
}

impl PartialEq<Scorer> for ScorerName {
    fn eq(&self, other: &Scorer) -> bool {
        self.0 == other.name()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn names_compare_with_text_and_look_up_by_it() {
        let aul = ScorerName::from(Scorer::Aul);
        assert_eq!(aul, "aul");
        assert_eq!("aul", aul);
        assert_eq!(aul, Scorer::Aul);
        assert_eq!(aul.known(), Some(Scorer::Aul));
        assert_eq!(ScorerName::new("bleu").known(), None);
        let mut by_model = BTreeMap::new();
        by_model.insert(ModelName::new("bert"), 1);
        assert_eq!(by_model.get("bert"), Some(&1));
        assert_eq!(
            serde_json::to_string(&DatasetName::new("crows-pairs")).unwrap(),
            "\"crows-pairs\""
        );
    }
}
