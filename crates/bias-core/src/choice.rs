//! Options with a fixed set of named values (a precision, an SSS form, a JSS variant), each
//! value named once, in the library that defines it, so that the CLI, the Python package and
//! any other front end parse, list and print it alike.
//!
//! ```
//! use bias_core::{Choice, Named};
//!
//! #[derive(Debug, Clone, Copy, PartialEq)]
//! enum Ties { Strict, Nangia }
//!
//! impl Choice for Ties {
//!     const WHAT: &'static str = "tie handling";
//!     const CHOICES: &'static [Named<Self>] = &[
//!         Named::new(Ties::Strict, "strict", "A tie is not stereotypical"),
//!         Named::new(Ties::Nangia, "nangia", "Ties are neutral").aliases(&["neutral"]),
//!     ];
//! }
//!
//! assert_eq!(Ties::parse_choice("neutral")?, Ties::Nangia);
//! assert_eq!(Ties::Strict.choice_name(), "strict");
//! assert!(Ties::parse_choice("loose").unwrap_err().to_string().contains("strict, nangia"));
//! # Ok::<(), bias_core::CoreError>(())
//! ```

use crate::CoreError;

/// One value of a [`Choice`]: its name, the other spellings taken for it, and a line of help.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Named<T: 'static> {
    /// The value.
    pub value: T,
    /// Its name, as front ends print and take it.
    pub name: &'static str,
    /// Other spellings taken for it.
    pub aliases: &'static [&'static str],
    /// What it means, in one line (a front end's help).
    pub help: &'static str,
}

impl<T> Named<T> {
    /// `value`, named `name`, with no alias.
    pub const fn new(value: T, name: &'static str, help: &'static str) -> Self {
        Named {
            value,
            name,
            aliases: &[],
            help,
        }
    }

    /// Takes each of `aliases` for the value too.
    pub const fn aliases(mut self, aliases: &'static [&'static str]) -> Self {
        self.aliases = aliases;
        self
    }
}

/// An option with a fixed set of named values.
pub trait Choice: Copy + PartialEq + Sized + 'static {
    /// What the option is, for errors (`precision`, `SSS form`).
    const WHAT: &'static str;
    /// Every value, in the order a front end lists them.
    const CHOICES: &'static [Named<Self>];

    /// The value's name.
    fn choice_name(self) -> &'static str {
        Self::CHOICES
            .iter()
            .find(|c| c.value == self)
            .map_or("", |c| c.name)
    }

    /// The value named `s` (its name or an alias, exactly, surrounding spaces aside).
    ///
    /// # Errors
    /// [`CoreError::UnknownChoice`] listing every name.
    fn parse_choice(s: &str) -> Result<Self, CoreError> {
        let s = s.trim();
        Self::CHOICES
            .iter()
            .find(|c| c.name == s || c.aliases.contains(&s))
            .map(|c| c.value)
            .ok_or_else(|| CoreError::UnknownChoice {
                what: Self::WHAT,
                value: s.to_owned(),
                expected: Self::CHOICES
                    .iter()
                    .map(|c| c.name)
                    .collect::<Vec<_>>()
                    .join(", "),
            })
    }
}

/// Declares an option enum and its [`Choice`] table at once: each value's name, aliases and help
/// stand on the line of its variant. The enum derives `Debug, Clone, Copy, PartialEq, Eq, Hash`
/// and displays as its name, and has `ALL` (every value, in declaration order) and `name()`;
/// further derives and attributes (`#[derive(Default)]`, `#[default]`, serde's) go where they
/// would on a plain enum. Values are listed in declaration order.
///
/// ```
/// bias_core::choice! {
///     /// How ties count.
///     #[derive(Default)]
///     pub enum Ties: "tie handling" {
///         /// Strictly.
///         #[default]
///         Strict = "strict" => "A tie is not stereotypical",
///         Nangia = "nangia" | "neutral" => "Ties are neutral",
///     }
/// }
///
/// use bias_core::Choice;
/// assert_eq!(Ties::parse_choice("neutral")?, Ties::Nangia);
/// assert_eq!(Ties::default().choice_name(), "strict");
/// assert_eq!(Ties::ALL.map(Ties::name), ["strict", "nangia"]);
/// # Ok::<(), bias_core::CoreError>(())
/// ```
#[macro_export]
macro_rules! choice {
    (
        $(#[$meta:meta])*
        $vis:vis enum $ty:ident: $what:literal {
            $(
                $(#[$vmeta:meta])*
                $variant:ident = $name:literal $(| $alias:literal)* => $help:expr
            ),+ $(,)?
        }
    ) => {
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        $(#[$meta])*
        $vis enum $ty {
            $($(#[$vmeta])* $variant,)+
        }

        impl $crate::Choice for $ty {
            const WHAT: &'static str = $what;
            const CHOICES: &'static [$crate::Named<Self>] = &[
                $($crate::Named::new(Self::$variant, $name, $help).aliases(&[$($alias),*]),)+
            ];
        }

        impl $ty {
            /// Every value, in declaration order.
            pub const ALL: [Self; [$(stringify!($variant)),+].len()] = [$(Self::$variant),+];

            /// The value's name, as its `Choice` table spells it (what the CLI takes).
            pub const fn name(self) -> &'static str {
                match self {
                    $(Self::$variant => $name,)+
                }
            }
        }

        impl ::std::fmt::Display for $ty {
            /// The value's name, as its `Choice` table spells it.
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str($crate::Choice::choice_name(*self))
            }
        }
    };
}
