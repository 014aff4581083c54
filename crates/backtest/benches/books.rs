//! The per-trade cost of a backtest's books in the busy case of issue 32 (settings like the
//! Freqtrade anchor strategy's: leverage 10, stop 0.2 %, take profits 0.4 %, trailing from
//! 0.1 % by 0.05 %, 3 trades of 100 USDT, a 1,000,000 USDT wallet) on the simulated market:
//! the history generated and rated first (not timed), then the trading alone, timed, with
//! the books in memory (what runs use) and in the scratch SQLite database (what they used
//! before), alternating (docs/benchmarks.md, "Backtests", "The busy case's books").
//! `cargo bench -p signaldesk-backtest --bench books -- DAYS SYMBOLS [memory|store]`
//! (defaults 30 20, both books; one word runs only those books, for a profile).

use std::time::Instant;

use chrono::{TimeZone, Utc};
use rust_decimal_macros::dec;
use signaldesk_backtest::data::instruments_of;
use signaldesk_backtest::threads::on_a_core;
use signaldesk_backtest::{Backtest, Candles, Progress, ScratchBooks, Signals};
use signaldesk_core::settings::BotSettings;
use signaldesk_venue::market::funding::FundingRates;
use signaldesk_venue::market::sim::default_symbols;
use signaldesk_venue::paper::PaperConfig;

const WARMUP_MS: i64 = 300 * 15 * 60_000;

/// The busy settings of issue 32.
fn busy() -> (BotSettings, PaperConfig) {
    let settings = BotSettings {
        leverage: 10,
        initial_stop_loss_pct: dec!(0.2),
        take_profit_first_pct: dec!(0.4),
        take_profit_next_pct: dec!(0.4),
        use_trailing_stop: true,
        trail_activation_pct: dec!(0.1),
        trail_step_pct: dec!(0.05),
        max_trades: 3,
        max_trade_usdt: dec!(100),
        max_total_usdt: dec!(300),
        ..BotSettings::default()
    };
    let paper = PaperConfig {
        starting_balance: dec!(1000000),
        ..PaperConfig::default()
    };
    (settings, paper)
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let days = args.first().copied().unwrap_or(30) as i64;
    let symbols_wanted = args.get(1).copied().unwrap_or(20);
    let symbols: Vec<String> = default_symbols()
        .into_iter()
        .take(symbols_wanted)
        .map(|s| s.instrument.symbol)
        .collect();
    let to = Utc
        .with_ymd_and_hms(2026, 11, 1, 0, 0, 0)
        .unwrap()
        .timestamp_millis();
    let from = to - days * 86_400_000;
    let only = std::env::args().skip(1).find_map(|a| match a.as_str() {
        "memory" => Some(ScratchBooks::Memory),
        "store" => Some(ScratchBooks::Store),
        _ => None,
    });
    let books_run: Vec<ScratchBooks> = match only {
        Some(books) => vec![books],
        None => vec![ScratchBooks::Memory, ScratchBooks::Store],
    };
    let (settings, paper) = busy();
    let streamed = Backtest {
        settings,
        instruments: instruments_of(&symbols).unwrap(),
        candles: Candles::Simulated {
            seed: 42,
            symbols: symbols.clone(),
            from_ms: from - WARMUP_MS,
            to_ms: to,
        },
        from_ms: from,
        signals: Signals::Ratings {
            interval_minutes: 15,
        },
        funding: FundingRates::None,
        paper,
        walk_every_candle: false,
    };
    let minutes = streamed.candles.load().unwrap();
    let loaded = Backtest {
        candles: Candles::Loaded(minutes),
        ..streamed
    };
    let signals = loaded.signals_once().unwrap();
    let scripted = Backtest {
        signals: Signals::Scripted(signals),
        ..loaded
    };
    for round in 1..=3 {
        for &books in &books_run {
            let began = Instant::now();
            let outcome = on_a_core(scripted.run_keeping(books, &Progress::default())).unwrap();
            let took = began.elapsed().as_secs_f64();
            let trades = outcome.trades.len().max(1);
            println!(
                "{days} days x {} symbols, busy settings, trading alone, books {books:?} (round {round}): {took:.2} s, {} trades, {:.1} µs a trade, {:.0} trades/s",
                symbols.len(),
                outcome.trades.len(),
                took * 1e6 / trades as f64,
                trades as f64 / took
            );
        }
    }
}
