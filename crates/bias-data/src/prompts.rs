//! Prompt files for `bias generate`: JSON lines with a `prompt` field (any other field is kept
//! out of the way), or plain text with one prompt per line.

use std::path::Path;

use crate::util::{invalid, read_file, source_name, utf8_lines};
use crate::DataError;

/// The prompts of `path`, in file order: a `.jsonl` / `.json` file holds one JSON object per line
/// with a string `prompt` (a prompt with line breaks needs this form); any other file one prompt
/// per line (a final line break is not an empty prompt).
///
/// # Errors
/// [`DataError::Core`] when the file cannot be read; [`DataError::MalformedJson`] for a line that
/// is not JSON; [`DataError::InvalidRecord`] for a line without a string `prompt`, an empty
/// prompt, or a file without prompts.
pub fn load_prompts(path: &Path) -> Result<Vec<String>, DataError> {
    let bytes = read_file(path)?;
    let name = source_name(path);
    let json = matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("jsonl" | "json")
    );
    let mut prompts = Vec::new();
    for line in utf8_lines(&bytes, &name) {
        let (n, text) = line?;
        let prompt = if json {
            prompt_of_json(path, n, text)?
        } else {
            text.to_owned()
        };
        if prompt.is_empty() {
            let why = "an empty prompt: remove the line, or give the prompt text";
            return Err(invalid(&name, format!("line {n}"), why));
        }
        prompts.push(prompt);
    }
    if prompts.is_empty() {
        return Err(invalid(&name, "the file", "holds no prompt"));
    }
    Ok(prompts)
}

/// The `prompt` of the JSON object on line `line`.
fn prompt_of_json(path: &Path, line: u64, text: &str) -> Result<String, DataError> {
    let expected = "each line must be a JSON object with a string \"prompt\"";
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|source| DataError::MalformedJson {
            path: path.to_path_buf(),
            line,
            column: source.column(),
            expected: expected.into(),
            source,
        })?;
    match value.get("prompt").and_then(serde_json::Value::as_str) {
        Some(p) => Ok(p.to_owned()),
        None => {
            let shown: String = text.chars().take(80).collect();
            let why = format!("{expected}, not {shown}");
            Err(invalid(&source_name(path), format!("line {line}"), why))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::load_prompts;

    /// `text` in a file `name` of a scratch folder of its own.
    fn file(name: &str, text: &str) -> std::path::PathBuf {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let path = bias_testkit::scratch(&format!("prompts-{n}")).join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn json_lines_and_plain_lines_give_the_prompts_in_order() {
        let p = file(
            "p.jsonl",
            "{\"prompt\": \"a\\nb\", \"id\": 1}\n{\"prompt\": \"c\"}\n",
        );
        assert_eq!(load_prompts(&p).unwrap(), ["a\nb", "c"]);
        let p = file("p.txt", "one\r\ntwo\n");
        assert_eq!(load_prompts(&p).unwrap(), ["one", "two"]);
    }

    #[test]
    fn bad_lines_are_named() {
        let p = file("p.jsonl", "{\"prompt\": \"a\"}\n{\"text\": \"b\"}\n");
        let e = load_prompts(&p).unwrap_err().to_string();
        assert!(e.contains("line 2") && e.contains("\"prompt\""), "{e}");
        let p = file("p.jsonl", "{\"prompt\": \"a\"}\n{oops\n");
        let e = load_prompts(&p).unwrap_err().to_string();
        assert!(e.contains("line 2: malformed JSON"), "{e}");
        let p = file("p.txt", "a\n\nb\n");
        let e = load_prompts(&p).unwrap_err().to_string();
        assert!(e.contains("line 2: an empty prompt"), "{e}");
        let p = file("p.txt", "");
        let e = load_prompts(&p).unwrap_err().to_string();
        assert!(e.contains("holds no prompt"), "{e}");
    }
}
