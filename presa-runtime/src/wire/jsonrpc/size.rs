//! What a message costs: its JSON text, and its parsed form in memory.
//!
//! Memory budgets charge what a server actually holds. A parsed
//! [`Value`] costs far more than its text when the text is dense with
//! small values (`[0,0,0,…]` is two bytes of text and 32 of memory per
//! element), and about its size when the text is mostly strings, so the
//! parsed form is measured, not guessed from the text: [`footprint`] walks
//! it once. What a server keeps as text (an answer stored in a task
//! record) is measured by [`json_len`], without building the text.

use serde::Serialize;
use serde_json::Value;

/// The size of one `Value` node: every element of an array and every value
/// of an object is one, inline in its parent.
const NODE: usize = std::mem::size_of::<Value>();

/// What a B-tree node of a `serde_json::Map` costs, and how many entries
/// it holds at least once the map has more than one node (the standard
/// library's B = 6: nodes of 5 to 11 entries).
const MAP_NODE: usize = 11 * (std::mem::size_of::<String>() + NODE) + 16;
const MAP_NODE_MIN_ENTRIES: usize = 5;

/// The heap bytes held by `value`, parsed, including its own node: an
/// estimate that errs on the high side, within a small factor of what the
/// allocator hands out.
pub fn footprint(value: &Value) -> usize {
    NODE + heap(value)
}

fn heap(value: &Value) -> usize {
    match value {
        Value::Null | Value::Bool(_) | Value::Number(_) => 0,
        Value::String(s) => s.len(),
        // Arrays grow by doubling as they are parsed.
        Value::Array(items) => {
            items.len().next_power_of_two() * NODE * usize::from(!items.is_empty())
                + items.iter().map(heap).sum::<usize>()
        }
        Value::Object(map) => {
            let nodes = if map.len() <= 11 {
                usize::from(!map.is_empty())
            } else {
                map.len().div_ceil(MAP_NODE_MIN_ENTRIES)
            };
            nodes * MAP_NODE
                + map
                    .iter()
                    .map(|(key, value)| key.len() + heap(value))
                    .sum::<usize>()
        }
    }
}

/// The length in bytes of `value`'s JSON text (compact), computed without
/// building the text; `0` for a value that does not serialize.
pub fn json_len<T: Serialize + ?Sized>(value: &T) -> usize {
    let mut counter = ByteCounter(0);
    match serde_json::to_writer(&mut counter, value) {
        Ok(()) => counter.0,
        Err(_) => 0,
    }
}

/// A writer that only counts.
struct ByteCounter(usize);

impl std::io::Write for ByteCounter {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0 += bytes.len();
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_len_is_the_length_of_the_compact_text() {
        let value = json!({"a": [1, 2, {"b": "ü"}], "c": null});
        assert_eq!(json_len(&value), value.to_string().len());
    }

    #[test]
    fn dense_values_cost_many_times_their_text() {
        let zeros: Value = serde_json::from_str(&format!("[{}0]", "0,".repeat(9_999))).unwrap();
        let text = zeros.to_string().len();
        assert!(
            footprint(&zeros) > 15 * text,
            "{} vs {text}",
            footprint(&zeros)
        );
        let string = Value::String("x".repeat(20_000));
        assert!(footprint(&string) < text + 100);
    }
}
