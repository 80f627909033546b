//! Figures as a program measures them: one readable row each, and at the
//! end one machine-readable line that `report` gathers.
//!
//! Every measuring program prints its rows as it goes (so a long run shows
//! progress) and ends with `FIGURES {json}`; `report` merges those lines
//! from all sections, computes the ratios and prints the final table.

use serde_json::{Map, Value};

/// The prefix of the line that carries a program's figures as JSON.
pub const FIGURES_PREFIX: &str = "FIGURES ";

/// The figures one program measured, in the order it measured them.
#[derive(Debug, Default)]
pub struct Figures {
    values: Map<String, Value>,
}

impl Figures {
    /// No figures yet.
    pub fn new() -> Self {
        Figures::default()
    }

    /// Records `value` under `key` and prints it as a row labelled `label`.
    /// The key's suffix names the unit (`_us`, `_per_s`, `_bytes`, `_ms`).
    pub fn record(&mut self, key: &str, label: &str, value: f64) {
        println!("{label:<58} {value:>14.2}  {key}");
        self.values.insert(key.to_owned(), json_number(value));
    }

    /// Records why a figure cannot be measured (a framework that cannot do
    /// the workload), in place of its value, and prints it as a row.
    pub fn record_why(&mut self, key: &str, why: &str) {
        println!("{key}: cannot be measured: {why}");
        self.values
            .insert(key.to_owned(), Value::String(why.to_owned()));
    }

    /// Records a figure another program measured (and printed), as is.
    pub fn insert(&mut self, key: &str, value: Value) {
        self.values.insert(key.to_owned(), value);
    }

    /// Prints the `FIGURES` line with everything recorded.
    pub fn emit(&self) {
        println!("{FIGURES_PREFIX}{}", Value::Object(self.values.clone()));
    }
}

/// `value` as a JSON number rounded to three decimals; `null` when it is not
/// finite (a figure that could not be measured).
pub fn json_number(value: f64) -> Value {
    if value.is_finite() {
        serde_json::Number::from_f64((value * 1000.0).round() / 1000.0)
            .map_or(Value::Null, Value::Number)
    } else {
        Value::Null
    }
}
