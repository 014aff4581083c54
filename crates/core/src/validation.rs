//! Field-by-field validation of JSON payloads: every problem is collected under its field
//! name, so a form can show them all at once.

use std::collections::BTreeMap;
use std::str::FromStr;

use rust_decimal::Decimal;
use serde_json::{Map, Value};

/// Messages per field, in field order.
pub type FieldErrors = BTreeMap<String, Vec<String>>;

pub const REQUIRED: &str = "This field is required.";

/// A JSON number with no fractional part, `2.0` included (JSON Schema counts it as an
/// integer too), within the range an `f64` holds exactly.
pub fn whole_number(value: &Value) -> Option<i64> {
    const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53
    let n = value.as_number()?;
    n.as_i64().or_else(|| {
        n.as_f64()
            .filter(|f| f.fract() == 0.0 && f.abs() <= EXACT)
            .map(|f| f as i64)
    })
}

/// Reads typed fields out of a JSON object, recording an error per bad field.
pub struct FieldReader<'a> {
    payload: &'a Map<String, Value>,
    pub errors: FieldErrors,
}

impl<'a> FieldReader<'a> {
    pub fn new(payload: &'a Map<String, Value>) -> FieldReader<'a> {
        FieldReader {
            payload,
            errors: FieldErrors::new(),
        }
    }

    pub fn error(&mut self, field: &str, message: impl Into<String>) {
        self.errors
            .entry(field.to_string())
            .or_default()
            .push(message.into());
    }

    /// The field's value when present and not null; a present null is recorded as required.
    fn present(&mut self, field: &str) -> Option<&'a Value> {
        match self.payload.get(field) {
            None => None,
            Some(Value::Null) => {
                self.error(field, REQUIRED);
                None
            }
            Some(value) => Some(value),
        }
    }

    /// Whether the payload carries this field at all (null included).
    pub fn has(&self, field: &str) -> bool {
        self.payload.contains_key(field)
    }

    pub fn is_null(&self, field: &str) -> bool {
        matches!(self.payload.get(field), Some(Value::Null))
    }

    pub fn integer(&mut self, field: &str, min: i64, max: i64) -> Option<i64> {
        let value = self.present(field)?;
        let parsed = match value {
            Value::String(s) => s.trim().parse::<i64>().ok(),
            other => whole_number(other),
        };
        let Some(n) = parsed else {
            self.error(field, "A valid integer is required.");
            return None;
        };
        self.check_range(
            field,
            Decimal::from(n),
            Decimal::from(min),
            Some(Decimal::from(max)),
        )
        .then_some(n)
    }

    /// A decimal number `>= min` (and `<= max` when given), exact as written in the JSON.
    pub fn decimal(&mut self, field: &str, min: Decimal, max: Option<Decimal>) -> Option<Decimal> {
        let value = self.present(field)?;
        let parsed = match value {
            Value::Number(n) => Decimal::from_str(&n.to_string())
                .or_else(|_| Decimal::from_scientific(&n.to_string()))
                .ok(),
            Value::String(s) => Decimal::from_str(s.trim()).ok(),
            _ => None,
        };
        let Some(d) = parsed else {
            self.error(field, "A valid number is required.");
            return None;
        };
        self.check_range(field, d, min, max)
            .then_some(d.normalize())
    }

    fn check_range(
        &mut self,
        field: &str,
        value: Decimal,
        min: Decimal,
        max: Option<Decimal>,
    ) -> bool {
        if value < min {
            self.error(
                field,
                format!("Ensure this value is greater than or equal to {min}."),
            );
            return false;
        }
        if let Some(max) = max {
            if value > max {
                self.error(
                    field,
                    format!("Ensure this value is less than or equal to {max}."),
                );
                return false;
            }
        }
        true
    }

    pub fn boolean(&mut self, field: &str) -> Option<bool> {
        match self.present(field)? {
            Value::Bool(b) => Some(*b),
            _ => {
                self.error(field, "Must be true or false.");
                None
            }
        }
    }

    pub fn string(&mut self, field: &str, max_chars: usize) -> Option<String> {
        match self.present(field)? {
            Value::String(s) if s.chars().count() <= max_chars => Some(s.trim().to_string()),
            Value::String(_) => {
                self.error(
                    field,
                    format!("Ensure this field has no more than {max_chars} characters."),
                );
                None
            }
            _ => {
                self.error(field, "Must be a string.");
                None
            }
        }
    }

    pub fn array(&mut self, field: &str) -> Option<&'a Vec<Value>> {
        match self.present(field)? {
            Value::Array(items) => Some(items),
            _ => {
                self.error(field, "Must be a list.");
                None
            }
        }
    }

    pub fn finish(self) -> Result<(), FieldErrors> {
        if self.errors.is_empty() {
            Ok(())
        } else {
            Err(self.errors)
        }
    }
}
