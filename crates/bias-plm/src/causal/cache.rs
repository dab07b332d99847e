//! The key-value cache of incremental decoding (`transformers`' `DynamicCache`): each attention
//! layer keeps the keys and values of every token decoded so far, so that a generation step runs
//! the network on its one new token only.
//!
//! A layer's keys are stored after the rotary embedding (as `transformers` stores them), so a
//! step's queries at positions `past..past + new` attend to keys that were rotated at their own
//! positions. Sliding-window layers keep every key too and let the mask hide the old ones;
//! `transformers`' `DynamicSlidingWindowLayer` drops them instead, which changes no value (a
//! masked key's softmax weight is exactly 0).

use std::cell::RefCell;

use tch::Tensor;

use crate::PlmError;

/// One attention layer's keys and values `[batch, kv_heads, length, head_dim]` so far.
#[derive(Debug, Default)]
pub(crate) struct KvSlot(RefCell<Option<(Tensor, Tensor)>>);

impl KvSlot {
    /// Appends this step's keys and values and returns those of every token so far.
    pub(crate) fn extend(&self, k: Tensor, v: Tensor) -> Result<(Tensor, Tensor), PlmError> {
        let mut held = self.0.borrow_mut();
        let (k, v) = match held.take() {
            None => (k, v),
            Some((past_k, past_v)) => (
                Tensor::f_cat(&[&past_k, &k], 2)?,
                Tensor::f_cat(&[&past_v, &v], 2)?,
            ),
        };
        *held = Some((k.shallow_clone(), v.shallow_clone()));
        Ok((k, v))
    }
}

/// The cache of a whole network: one [`KvSlot`] per attention layer, and the number of tokens
/// they hold.
#[derive(Debug)]
pub(crate) struct KvCache {
    slots: Vec<KvSlot>,
    length: i64,
}

impl KvCache {
    /// An empty cache for `layers` attention layers.
    pub(crate) fn new(layers: usize) -> Self {
        KvCache {
            slots: (0..layers).map(|_| KvSlot::default()).collect(),
            length: 0,
        }
    }

    /// The tokens decoded so far.
    pub(crate) fn len(&self) -> i64 {
        self.length
    }

    /// Layer `i`'s slot.
    pub(crate) fn slot(&self, i: usize) -> Option<&KvSlot> {
        self.slots.get(i)
    }

    /// Records that a step decoded `new` more tokens.
    pub(crate) fn advance(&mut self, new: i64) {
        self.length += new;
    }
}

/// What a network's forward pass reads about its inputs: the 0/1 `mask` `[batch, keys]` of every
/// token attended to (the cached ones first), and the cache, if the pass is a decoding step. The
/// step's `ids` are the last `queries` of the `keys` positions.
pub(crate) struct Pass<'a> {
    /// The attention mask over cached and new tokens.
    pub(crate) mask: &'a Tensor,
    /// The cache the pass reads and extends (`None`: a whole batch at once, as scoring runs).
    pub(crate) cache: Option<&'a KvCache>,
}

impl Pass<'_> {
    /// The position of the pass's first new token (the tokens already cached).
    pub(crate) fn offset(&self) -> i64 {
        self.cache.map_or(0, KvCache::len)
    }

    /// Layer `i`'s cache slot, if decoding.
    pub(crate) fn slot(&self, i: usize) -> Option<&KvSlot> {
        self.cache.and_then(|c| c.slot(i))
    }
}

/// `k` and `v` extended by `slot` ([`KvSlot::extend`]), or unchanged without one.
pub(crate) fn remember(
    slot: Option<&KvSlot>,
    k: Tensor,
    v: Tensor,
) -> Result<(Tensor, Tensor), PlmError> {
    match slot {
        Some(slot) => slot.extend(k, v),
        None => Ok((k, v)),
    }
}
