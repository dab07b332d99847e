//! Tokenising sentences exactly as the Hugging Face fast tokenizer of a model does, from its
//! `tokenizer.json` (the `tokenizers` library that backs `transformers`' fast tokenizers).

use std::path::{Path, PathBuf};

use tokenizers::Tokenizer;

use crate::PlmError;

/// The strings the mask token goes by in BERT-style and RoBERTa-style vocabularies.
const MASK_NAMES: [&str; 2] = ["[MASK]", "<mask>"];
/// The strings the padding token goes by.
const PAD_NAMES: [&str; 2] = ["[PAD]", "<pad>"];

/// A model's tokenizer, read from `tokenizer.json`, with truncation and padding turned off so
/// that [`PlmTokenizer::encode`] returns what `AutoTokenizer.from_pretrained(dir)(text)` returns
/// in `transformers` (special tokens added by the file's post-processor).
#[derive(Debug, Clone)]
pub struct PlmTokenizer {
    inner: Tokenizer,
    path: PathBuf,
    mask_id: Option<i64>,
    pad_id: Option<i64>,
}

/// A sentence tokenised with special tokens, with where each token came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenizedText {
    /// Token ids, special tokens included.
    pub ids: Vec<i64>,
    /// Byte range of each token in the input text (`(0, 0)` for special tokens).
    pub offsets: Vec<(usize, usize)>,
    /// Whether each token is a special token added by the post-processor (`[CLS]`, `</s>`, …).
    pub special: Vec<bool>,
}

impl PlmTokenizer {
    /// Reads `tokenizer.json` from a model folder.
    ///
    /// # Errors
    /// Those of [`PlmTokenizer::from_file`].
    pub fn from_dir(dir: impl AsRef<Path>) -> Result<Self, PlmError> {
        let folder = crate::adapter::ModelFolder::of(dir.as_ref())?;
        Self::from_file(folder.tokenizer.join("tokenizer.json"))
    }

    /// Reads a `tokenizer.json`.
    ///
    /// # Errors
    /// [`PlmError::MissingFile`] if it does not exist (with how to produce it);
    /// [`PlmError::Tokenizer`] if the library cannot read it.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self, PlmError> {
        let path = path.as_ref().to_path_buf();
        if !path.is_file() {
            return Err(PlmError::MissingFile {
                path,
                hint: "a fast-tokenizer file is needed; write it with \
                       `AutoTokenizer.from_pretrained(DIR).save_pretrained(DIR)` (slow-only \
                       vocab.txt / sentencepiece files are not read)"
                    .into(),
            });
        }
        // What `Tokenizer::from_file` does, with the text kept for `from_text`.
        let text = std::fs::read_to_string(&path).map_err(|e| PlmError::Tokenizer {
            path: path.clone(),
            source: e.into(),
        })?;
        Self::from_text(&text, path)
    }

    /// Reads the text of a `tokenizer.json` held in memory (in Python,
    /// `tokenizer.backend_tokenizer.to_str()` of a `transformers` fast tokenizer, or the file's
    /// text), exactly as [`PlmTokenizer::from_file`] reads the file. Errors and
    /// [`PlmTokenizer::path`] name it `<in-memory tokenizer of NAME>`, `NAME` being `name`.
    ///
    /// # Errors
    /// [`PlmError::Tokenizer`] if the library cannot read it.
    pub fn from_json_str(text: &str, name: &str) -> Result<Self, PlmError> {
        Self::from_text(text, crate::parts::pseudo_path("tokenizer", name))
    }

    /// The tokenizer of a `tokenizer.json` text; `path` names it in errors.
    fn from_text(text: &str, path: PathBuf) -> Result<Self, PlmError> {
        // The whole text is checked to be JSON first: `tokenizers` 0.22 panics (an `expect` in
        // its decoder's deserializer) on a file cut short inside the `decoder` part, where it
        // should return an error.
        serde_json::from_str::<serde::de::IgnoredAny>(text).map_err(|e| PlmError::Tokenizer {
            path: path.clone(),
            source: format!("not a whole JSON document ({e}): the file is damaged or cut short")
                .into(),
        })?;
        let mut inner =
            Tokenizer::from_bytes(text.as_bytes()).map_err(|source| PlmError::Tokenizer {
                path: path.clone(),
                source,
            })?;
        let pad_from_params = inner.get_padding().map(|p| i64::from(p.pad_id));
        inner
            .with_truncation(None)
            .map_err(|source| PlmError::Tokenizer {
                path: path.clone(),
                source,
            })?;
        inner.with_padding(None);
        // A vocabulary may hold both spellings (MPNet's has BERT's `[MASK]` and `[PAD]` as
        // plain pieces besides its special `<mask>` and `<pad>`): a special added token wins.
        let special: Vec<String> = inner
            .get_added_tokens_decoder()
            .into_values()
            .filter(|t| t.special)
            .map(|t| t.content)
            .collect();
        let find = |names: &[&str]| {
            names
                .iter()
                .filter(|n| special.iter().any(|s| s == *n))
                .chain(names.iter())
                .find_map(|n| inner.token_to_id(n))
                .map(i64::from)
        };
        let mask_id = find(&MASK_NAMES);
        let pad_id = find(&PAD_NAMES).or(pad_from_params);
        Ok(PlmTokenizer {
            inner,
            path,
            mask_id,
            pad_id,
        })
    }

    /// The `tokenizer.json` this was read from (`<in-memory tokenizer of NAME>` for one read by
    /// [`PlmTokenizer::from_json_str`]).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Token ids of `text` with the model's special tokens (`[CLS] … [SEP]`, `<s> … </s>`).
    ///
    /// # Errors
    /// [`PlmError::Tokenizer`] if the library fails.
    pub fn encode(&self, text: &str) -> Result<Vec<i64>, PlmError> {
        Ok(self.encode_detailed(text)?.ids)
    }

    /// Token ids of `text` without special tokens (`add_special_tokens=False`).
    ///
    /// # Errors
    /// [`PlmError::Tokenizer`] if the library fails.
    pub fn encode_plain(&self, text: &str) -> Result<Vec<i64>, PlmError> {
        let enc = self
            .inner
            .encode(text, false)
            .map_err(|source| self.error(source))?;
        Ok(enc.get_ids().iter().map(|&i| i64::from(i)).collect())
    }

    /// Token ids of `text` with special tokens, and each token's byte range and special flag.
    ///
    /// # Errors
    /// [`PlmError::Tokenizer`] if the library fails.
    pub fn encode_detailed(&self, text: &str) -> Result<TokenizedText, PlmError> {
        let enc = self
            .inner
            .encode(text, true)
            .map_err(|source| self.error(source))?;
        Ok(TokenizedText {
            ids: enc.get_ids().iter().map(|&i| i64::from(i)).collect(),
            offsets: enc.get_offsets().to_vec(),
            special: enc
                .get_special_tokens_mask()
                .iter()
                .map(|&m| m != 0)
                .collect(),
        })
    }

    /// The id of the mask token (`[MASK]` or `<mask>`; the special added token when the
    /// vocabulary has both, as MPNet's does).
    ///
    /// # Errors
    /// [`PlmError::MissingSpecialToken`] if the vocabulary has neither.
    pub fn mask_id(&self) -> Result<i64, PlmError> {
        self.mask_id.ok_or_else(|| PlmError::MissingSpecialToken {
            role: "mask",
            candidates: MASK_NAMES.join(", "),
            path: self.path.clone(),
        })
    }

    /// The id of the padding token (`[PAD]` or `<pad>`, the special added token when the
    /// vocabulary has both; else the file's padding settings).
    ///
    /// # Errors
    /// [`PlmError::MissingSpecialToken`] if none is found.
    pub fn pad_id(&self) -> Result<i64, PlmError> {
        self.pad_id.ok_or_else(|| PlmError::MissingSpecialToken {
            role: "pad",
            candidates: PAD_NAMES.join(", "),
            path: self.path.clone(),
        })
    }

    /// The id of a token string, if the vocabulary has it.
    pub fn token_to_id(&self, token: &str) -> Option<i64> {
        self.inner.token_to_id(token).map(i64::from)
    }

    /// The token string of an id, if the id is in the vocabulary.
    pub fn id_to_token(&self, id: i64) -> Option<String> {
        u32::try_from(id)
            .ok()
            .and_then(|i| self.inner.id_to_token(i))
    }

    /// Decodes ids back to text (for messages), optionally dropping special tokens.
    ///
    /// # Errors
    /// [`PlmError::Tokenizer`] if an id is negative or the library fails.
    pub fn decode(&self, ids: &[i64], skip_special_tokens: bool) -> Result<String, PlmError> {
        let ids = ids
            .iter()
            .map(|&i| {
                u32::try_from(i).map_err(|_| self.error(format!("token id {i} is negative").into()))
            })
            .collect::<Result<Vec<u32>, _>>()?;
        self.inner
            .decode(&ids, skip_special_tokens)
            .map_err(|source| self.error(source))
    }

    /// The vocabulary size, added tokens included.
    pub fn vocab_size(&self) -> usize {
        self.inner.get_vocab_size(true)
    }

    /// The underlying `tokenizers` tokenizer.
    pub fn inner(&self) -> &Tokenizer {
        &self.inner
    }

    fn error(&self, source: tokenizers::Error) -> PlmError {
        PlmError::Tokenizer {
            path: self.path.clone(),
            source,
        }
    }
}
