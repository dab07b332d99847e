//! The CLI's parser of the library's options ([`bias_core::Choice`]): their names, aliases and
//! help come from the library, so `--help`, the Python package and the error of a bad name agree.

use bias_core::Choice;
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};

/// The value parser of option `T`: its names and aliases, with each value's help.
pub fn choice<T: Choice + Send + Sync>() -> impl TypedValueParser<Value = T> {
    PossibleValuesParser::new(T::CHOICES.iter().map(|c| {
        let value = PossibleValue::new(c.name).aliases(c.aliases.iter().copied());
        if c.help.is_empty() {
            value
        } else {
            value.help(c.help)
        }
    }))
    .try_map(|s| {
        // Clap has matched `s` already, by case too unless the flag has `ignore_case`.
        T::parse_choice(&s).or_else(|e| {
            T::CHOICES
                .iter()
                .find(|c| {
                    std::iter::once(&c.name)
                        .chain(c.aliases)
                        .any(|n| n.eq_ignore_ascii_case(&s))
                })
                .map(|c| c.value)
                .ok_or(e)
        })
    })
}
