//! Why a finished run traded nothing, told from what the run saw: no candles, no signals,
//! no signal the bot enters on, or every entry skipped (counted by kind of reason).

use serde::Serialize;
use signaldesk_backtest::{Outcome, Signals};
use utoipa::ToSchema;

use super::view::HistoryView;

#[derive(Serialize, ToSchema, Debug, PartialEq)]
pub struct NoTradesView {
    /// `no_candles`, `no_signals`, `no_entries` (signals, none a change into STRONG_BUY or
    /// STRONG_SELL), `all_skipped` or `not_opened`.
    pub code: String,
    /// The reason in one or two sentences, for the trader.
    pub text: String,
    /// Signals of the period the bot heard.
    pub signals: usize,
    /// Of those, the ones it tried to enter on.
    pub entries: usize,
    /// The skipped entries by kind of reason, the most frequent first.
    pub skips: Vec<SkipCountView>,
}

#[derive(Serialize, ToSchema, Debug, PartialEq)]
pub struct SkipCountView {
    /// `below_minimum`, `forbidden_window`, `max_trades`, ... (the worker's reasons).
    pub kind: String,
    /// A short phrase, e.g. "order below the instrument's minimum".
    pub label: String,
    pub count: usize,
}

impl NoTradesView {
    /// Why `outcome` holds no trade; `None` when it holds some.
    pub fn of(outcome: &Outcome, signals: &Signals, history: &HistoryView) -> Option<NoTradesView> {
        if !outcome.trades.is_empty() {
            return None;
        }
        let mut skips: Vec<SkipCountView> = outcome
            .skips_by_kind
            .iter()
            .map(|(kind, count)| SkipCountView {
                kind: kind.code().into(),
                label: kind.label().into(),
                count: *count,
            })
            .collect();
        skips.sort_by_key(|skip| std::cmp::Reverse(skip.count));
        let (seen, tried) = (outcome.signals_seen, outcome.entries_tried);
        let skipped: usize = skips.iter().map(|s| s.count).sum();
        let (code, text) = if history.to_ms <= history.from_ms {
            (
                "no_candles",
                "No candles in the period: there were no prices to trade on.".into(),
            )
        } else if seen == 0 {
            let text = match signals {
                Signals::Ratings { .. } => {
                    "No signals in the period: the rating engine rated none of the symbols."
                }
                Signals::Scripted(_) => {
                    "No signals in the period: no recorded alert falls in these dates."
                }
            };
            ("no_signals", text.to_string())
        } else if tried == 0 {
            (
                "no_entries",
                format!(
                    "{seen} {} in the period, but none was a change into STRONG_BUY or \
                     STRONG_SELL, the only moment the bot enters.",
                    plural(seen, "signal", "signals")
                ),
            )
        } else if skipped >= tried {
            let counts: Vec<String> = skips
                .iter()
                .map(|s| format!("{} ({})", s.label, s.count))
                .collect();
            (
                "all_skipped",
                format!(
                    "{} skipped: {}.",
                    if tried == 1 {
                        "The only entry signal was".to_string()
                    } else {
                        format!("All {tried} entry signals were")
                    },
                    counts.join(", ")
                ),
            )
        } else {
            (
                "not_opened",
                format!(
                    "{tried} entry {}, {skipped} skipped, but no order was filled.",
                    plural(tried, "signal", "signals")
                ),
            )
        };
        Some(NoTradesView {
            code: code.into(),
            text,
            signals: seen,
            entries: tried,
            skips,
        })
    }
}

fn plural(n: usize, one: &'static str, many: &'static str) -> &'static str {
    if n == 1 {
        one
    } else {
        many
    }
}
