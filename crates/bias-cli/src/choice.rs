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

#[cfg(test)]
mod tests {
    use super::*;
    use bias_core::Scorer;
    use clap::{Arg, Command};

    fn parse(ignore_case: bool, value: &str) -> Result<Scorer, clap::Error> {
        let arg = Arg::new("s")
            .long("s")
            .value_parser(choice::<Scorer>())
            .ignore_case(ignore_case);
        let m = Command::new("t")
            .arg(arg)
            .try_get_matches_from(["t", "--s", value])?;
        Ok(*m.get_one::<Scorer>("s").unwrap())
    }

    #[test]
    fn names_aliases_and_case_are_the_library_s() {
        assert_eq!(parse(false, "all-masked").unwrap(), Scorer::AllMasked);
        assert_eq!(parse(false, "all_masked").unwrap(), Scorer::AllMasked);
        assert_eq!(parse(true, "LL_SUM").unwrap(), Scorer::LlSum);
        let err = parse(false, "AUL").unwrap_err().to_string();
        assert!(
            err.contains("invalid value 'AUL'") && err.contains("ll-mean"),
            "{err}"
        );
    }
}
