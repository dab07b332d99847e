//! Reading a safetensors file (an 8-byte little-endian header length, a JSON header naming each
//! tensor's dtype, shape and byte range, then the data) into libtorch tensors one tensor at a
//! time: a checkpoint costs its size in memory plus its largest tensor, not twice its size
//! (`tch::Tensor::read_safetensors` holds the whole file and a copy of every tensor at once),
//! and floating-point tensors are converted to the model's kind one at a time (an f32
//! checkpoint loaded in bf16 never holds all its f32 tensors).

use std::fs::File;
use std::io::Read;
use std::os::unix::fs::FileExt;
use std::path::Path;

use serde_json::{Map, Value};
use tch::{Kind, Tensor};

use crate::PlmError;

/// The header of the safetensors file `path`: its JSON object and where the data starts.
///
/// # Errors
/// [`PlmError::Io`]; [`PlmError::Checkpoint`] for a header longer than the file or not JSON.
pub(crate) fn header(path: &Path) -> Result<(Map<String, Value>, u64), PlmError> {
    let io = |source| PlmError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut f = File::open(path).map_err(io)?;
    let mut len = [0u8; 8];
    f.read_exact(&mut len).map_err(io)?;
    let len = u64::from_le_bytes(len);
    let size = f.metadata().map_err(io)?.len();
    if len > size.saturating_sub(8) {
        return Err(bad(
            path,
            format!(
                "its header claims {len} bytes, more than the file's {size}; the file is \
                 truncated or not safetensors"
            ),
        ));
    }
    let mut text = Vec::new();
    f.take(len).read_to_end(&mut text).map_err(io)?;
    let parsed = serde_json::from_slice(&text)
        .map_err(|e| bad(path, format!("its header is not a JSON object: {e}")))?;
    Ok((parsed, 8 + len))
}

/// Every tensor of the safetensors file `path`, on the CPU, floating-point ones in `kind`.
///
/// # Errors
/// Those of [`header`]; [`PlmError::Checkpoint`] for an entry without a known dtype, a shape or
/// a byte range that fits the file and the shape; [`PlmError::Io`]; [`PlmError::Torch`].
pub(crate) fn read_tensors(path: &Path, kind: Kind) -> Result<Vec<(String, Tensor)>, PlmError> {
    let (entries, data_start) = header(path)?;
    let file = File::open(path).map_err(|source| PlmError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let size = file.metadata().map(|m| m.len()).unwrap_or(0);
    let mut out = Vec::with_capacity(entries.len());
    for (name, entry) in &entries {
        if name == "__metadata__" {
            continue;
        }
        let (dtype, shape, (start, end)) = entry_of(entry).ok_or_else(|| {
            bad(
                path,
                format!("tensor {name}: its header entry is malformed"),
            )
        })?;
        let (tensor_kind, width) = kind_of(dtype).ok_or_else(|| {
            bad(
                path,
                format!("tensor {name} has an unsupported dtype {dtype}"),
            )
        })?;
        let fits = byte_len(&shape, width).is_some_and(|len| {
            end.checked_sub(start) == Some(len)
                && data_start.checked_add(end).is_some_and(|last| last <= size)
        });
        if !fits {
            return Err(bad(
                path,
                format!(
                    "tensor {name}: bytes {start}..{end} do not hold {shape:?} of {dtype} within \
                     the file; the file is truncated or damaged"
                ),
            ));
        }
        // One tensor's bytes at a time: the file is never held whole beside its tensors.
        let mut bytes = vec![0u8; (end - start) as usize];
        file.read_exact_at(&mut bytes, data_start + start)
            .map_err(|source| PlmError::Io {
                path: path.to_path_buf(),
                source,
            })?;
        let tensor = Tensor::f_from_data_size(&bytes, shape.as_slice(), tensor_kind)?;
        drop(bytes);
        let floating = matches!(
            tensor_kind,
            Kind::Double | Kind::Float | Kind::Half | Kind::BFloat16
        );
        let tensor = if floating && tensor_kind != kind {
            tensor.f_to_kind(kind)?
        } else {
            tensor
        };
        out.push((name.clone(), tensor));
    }
    Ok(out)
}

/// An entry's dtype, shape and byte range.
fn entry_of(entry: &Value) -> Option<(&str, Vec<i64>, (u64, u64))> {
    let dtype = entry.get("dtype")?.as_str()?;
    let shape = entry
        .get("shape")?
        .as_array()?
        .iter()
        .map(Value::as_i64)
        .collect::<Option<Vec<i64>>>()?;
    let offsets = entry.get("data_offsets")?.as_array()?;
    let (start, end) = (offsets.first()?.as_u64()?, offsets.get(1)?.as_u64()?);
    Some((dtype, shape, (start, end)))
}

/// The bytes a tensor of `shape` and element `width` takes; `None` for a negative dimension or
/// a size past `u64` (a damaged header must be an error, never an overflow).
fn byte_len(shape: &[i64], width: u64) -> Option<u64> {
    shape
        .iter()
        .try_fold(width, |len, &dim| len.checked_mul(u64::try_from(dim).ok()?))
}

/// The libtorch kind and byte width of a safetensors dtype.
fn kind_of(dtype: &str) -> Option<(Kind, u64)> {
    Some(match dtype {
        "F64" => (Kind::Double, 8),
        "F32" => (Kind::Float, 4),
        "F16" => (Kind::Half, 2),
        "BF16" => (Kind::BFloat16, 2),
        "I64" => (Kind::Int64, 8),
        "I32" => (Kind::Int, 4),
        "I16" => (Kind::Int16, 2),
        "I8" => (Kind::Int8, 1),
        "U8" => (Kind::Uint8, 1),
        "BOOL" => (Kind::Bool, 1),
        _ => return None,
    })
}

fn bad(path: &Path, reason: String) -> PlmError {
    PlmError::Checkpoint {
        path: path.to_path_buf(),
        reason,
    }
}

#[cfg(test)]
mod tests {
    use super::{byte_len, read_tensors};
    use tch::{Kind, Tensor};

    /// A file written by libtorch reads back equal (f32 kept, bf16 converted, integers kept);
    /// one cut short is refused naming the tensor.
    #[test]
    fn tensors_read_back_in_the_asked_kind_and_a_cut_file_is_refused() {
        let dir = std::env::temp_dir().join(format!("bias-tensor-file-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("w.safetensors");
        let w = Tensor::from_slice(&[1.5f32, -2.25, 3.0, 0.1]).reshape([2, 2]);
        let ids = Tensor::from_slice(&[7i64, 9]);
        Tensor::write_safetensors(&[("w", &w), ("ids", &ids)], &path).unwrap();
        let read = |kind| {
            let mut got = read_tensors(&path, kind).unwrap();
            got.sort_by(|a, b| a.0.cmp(&b.0));
            got
        };
        let f32s = read(Kind::Float);
        assert_eq!(f32s[1].0, "w");
        assert!(f32s[1].1.equal(&w));
        assert!(f32s[0].1.equal(&ids));
        let bf16 = read(Kind::BFloat16);
        assert_eq!(bf16[1].1.kind(), Kind::BFloat16);
        assert!(bf16[1].1.equal(&w.to_kind(Kind::BFloat16)));
        assert_eq!(bf16[0].1.kind(), Kind::Int64);
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 3]).unwrap();
        let e = read_tensors(&path, Kind::Float).unwrap_err().to_string();
        assert!(e.contains("truncated or damaged"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Shapes whose size passes `u64` or holds a negative dimension are refused, not wrapped
    /// (a header claiming `[2^31, 2^31]` of f32 once overflowed the product).
    #[test]
    fn tensor_sizes_never_overflow() {
        assert_eq!(byte_len(&[2, 3], 4), Some(24));
        assert_eq!(byte_len(&[], 2), Some(2));
        assert_eq!(byte_len(&[0, 7], 4), Some(0));
        assert_eq!(byte_len(&[1 << 31, 1 << 31], 2), Some(1 << 63));
        assert_eq!(byte_len(&[1 << 31, 1 << 31], 4), None);
        assert_eq!(byte_len(&[-1, 4], 4), None);
        assert_eq!(byte_len(&[i64::MAX, 4], 1), None);
    }
}
