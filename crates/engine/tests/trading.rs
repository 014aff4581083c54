//! The trading worker's rules as deterministic scenarios: scripted signals and prices on a
//! hand-moved market, a real SQLite store and a controlled clock. Each rule of DESIGN.md
//! section 5 has its scenario, and every scenario runs twice: on the real paper exchange
//! (module `paper`) and through the real Bybit client against the fake Bybit on loopback
//! (module `bybit`: signed REST, the private stream, stops run by the exchange). Neither
//! venue slips, so every number is exact and the same on both. Telegram is a fake Bot API
//! on loopback.

mod desk_support;
mod fake_telegram;

use signaldesk_core::account::AccountVenue;
use std::sync::Arc;

use desk_support::{
    bybit_venue, classic, instrument, store_signal, store_with_trader, trades, worker,
};

use chrono::{DateTime, Duration, TimeZone, Utc};
use rust_decimal::Decimal;
use rust_decimal_macros::dec;
use signaldesk_core::market::{PositionSide, Side};
use signaldesk_core::settings::{BotMode, BotSettings};
use signaldesk_engine::telegram::Notifier;
use signaldesk_engine::trading::{Command, SyncReport, TradingWorker};
use signaldesk_fake_bybit::{FakeBybit, FakeConfig, KeySpec};
use signaldesk_store::test_support::TestDatabase;
use signaldesk_store::{ChainStatus, Store, StoredSignal, Trade, TradeStatus};
use signaldesk_venue::market::manual::ManualMarket;
use signaldesk_venue::paper::{NoJournal, PaperConfig, PaperExchange};
use signaldesk_venue::{OrderRequest, Stops, Venue, VenueEvent};
use tokio::sync::{broadcast, oneshot};

/// Every scenario, once on each venue.
macro_rules! on_paper_and_bybit {
    ($($scenario:ident),* $(,)?) => {
        mod paper {
            $(#[tokio::test]
            async fn $scenario() {
                super::$scenario(super::On::Paper).await
            })*
        }
        mod bybit {
            $(#[tokio::test]
            async fn $scenario() {
                super::$scenario(super::On::Bybit).await
            })*
        }
    };
}

on_paper_and_bybit!(
    an_entry_happens_only_on_the_transition_into_a_strong_signal,
    reverse_mode_trades_against_the_signal,
    each_limit_skips_with_a_log_line_saying_why,
    the_stop_loss_sits_at_the_setting_and_closes_the_trade,
    the_first_take_profit_closes_half_and_moves_the_stop_to_break_even_then_the_next,
    the_trailing_stop_activates_in_favour_and_only_tightens,
    forbidden_hours_across_midnight_and_forbidden_days_in_the_users_zone,
    martingale_steps_double_until_the_depth_limit_ends_the_chain_in_a_loss,
    a_profit_ends_the_chain_and_max_active_chains_holds_back_new_ones,
    a_settings_change_is_used_at_the_next_decision,
    a_manual_close_books_the_trade_and_close_all_closes_every_one,
    reconciliation_adopts_unknown_positions_and_books_closes_made_while_away,
    deals_are_sent_to_the_users_chat_and_a_hanging_telegram_never_holds_an_order,
    the_daily_summary_counts_the_local_day_that_just_ended,
    a_pending_trade_is_settled_by_the_venue_and_its_order_id_never_opens_twice,
    a_stop_loss_the_price_went_through_while_away_closes_the_position_at_reconciliation,
    two_trades_on_one_symbol_closed_while_away_are_each_booked_with_their_own_result,
    a_close_during_a_store_outage_is_booked_after_it_and_no_entry_happens_meanwhile,
    the_daily_loss_breaker_stops_entries_until_local_midnight_and_open_trades_keep_their_stops,
    the_losses_in_a_row_breaker_stops_entries_for_its_pause,
);

/// The venue a scenario runs on.
#[derive(Debug, Clone, Copy)]
enum On {
    Paper,
    Bybit,
}

/// The exchange behind the venue, which the test moves by hand.
enum Exchange {
    Paper(PaperExchange),
    /// The fake Bybit, trading for the API key [`KEY`].
    Bybit(FakeBybit),
}

const KEY: &str = "KEY";

/// A trading desk for one user: the worker, its venue and the means to move the world.
struct Desk {
    db: TestDatabase,
    store: Store,
    user: i64,
    market: Arc<ManualMarket>,
    exchange: Exchange,
    venue: Arc<dyn Venue>,
    events: broadcast::Receiver<VenueEvent>,
    worker: TradingWorker,
    now: DateTime<Utc>,
}

impl Desk {
    /// Monday 2026-11-23 12:00 UTC, BTC at 30,000 and ETH at 2,000, every signal NEUTRAL.
    async fn new(on: On, settings: BotSettings) -> Desk {
        Desk::with_telegram(on, settings, Notifier::disabled()).await
    }

    async fn with_telegram(on: On, settings: BotSettings, telegram: Notifier) -> Desk {
        let trader = store_with_trader(&settings).await;
        Desk::on_store(on, telegram, trader).await
    }

    /// A desk whose books are in `trader` (a database with the user and their settings).
    async fn on_store(
        on: On,
        telegram: Notifier,
        (db, store, user): (TestDatabase, Store, i64),
    ) -> Desk {
        let now = Utc.with_ymd_and_hms(2026, 11, 23, 12, 0, 0).unwrap();
        let instruments = vec![instrument("BTCUSDT"), instrument("ETHUSDT")];
        let market = Arc::new(ManualMarket::new(
            instruments.clone(),
            now.timestamp_millis(),
        ));
        let no_slippage = PaperConfig {
            slippage_bps: dec!(0),
            ..PaperConfig::default()
        };
        let (exchange, venue): (Exchange, Arc<dyn Venue>) = match on {
            On::Paper => {
                let exchange = PaperExchange::new(market.clone(), no_slippage, Arc::new(NoJournal))
                    .await
                    .unwrap();
                let venue = Arc::new(exchange.account(user));
                (Exchange::Paper(exchange), venue)
            }
            On::Bybit => {
                let mut config = FakeConfig::new(instruments);
                config.paper = no_slippage;
                let fake = FakeBybit::start(config).await.unwrap();
                fake.add_key(KeySpec::new(KEY, "SECRET"));
                let venue = Arc::new(bybit_venue(&fake, KEY));
                (Exchange::Bybit(fake), venue)
            }
        };
        for (symbol, price) in [("BTCUSDT", dec!(30000)), ("ETHUSDT", dec!(2000))] {
            market.set_price(symbol, price);
            exchange.set_price(symbol, price, now);
        }
        let events = venue.subscribe();
        let worker = worker(
            &store,
            user,
            &venue,
            &market,
            telegram,
            &["BTCUSDT", "ETHUSDT"],
            now,
        )
        .await;
        Desk {
            db,
            store,
            user,
            market,
            exchange,
            venue,
            events,
            worker,
            now,
        }
    }

    async fn signal(&mut self, symbol: &str, rating: &str) {
        let stored = store_signal(&self.store, self.user, symbol, rating, self.now).await;
        self.worker.on_signal(&stored, self.now).await;
        self.pump().await;
    }

    /// A new price: the venue runs its stops, then the worker hears what happened and runs
    /// its take-profit ladder.
    async fn price(&mut self, symbol: &str, price: Decimal) {
        self.now += Duration::seconds(1);
        self.market.set_price(symbol, price);
        self.exchange.set_price(symbol, price, self.now);
        self.pump().await;
        self.worker.on_tick(symbol, price, self.now).await;
        self.pump().await;
    }

    /// A price the exchange sees while the worker does not.
    fn price_while_away(&self, symbol: &str, price: Decimal) {
        self.exchange.set_price(symbol, price, self.now);
    }

    /// A market order placed by hand on the exchange, outside the bot.
    async fn order_by_hand(&self, symbol: &str, side: Side, qty: Decimal) {
        match &self.exchange {
            Exchange::Paper(exchange) => {
                let order = OrderRequest {
                    client_order_id: "by-hand-1".into(),
                    symbol: symbol.into(),
                    side,
                    qty,
                    reduce_only: false,
                };
                exchange
                    .account(self.user)
                    .submit_market_order(order)
                    .await
                    .unwrap();
            }
            Exchange::Bybit(fake) => fake.order_by_hand(KEY, symbol, side, qty),
        }
    }

    /// Where the venue's trailing stop on `symbol` stands, once it has activated.
    async fn trailing_stop_price(&self, symbol: &str) -> Option<Decimal> {
        match &self.exchange {
            Exchange::Paper(exchange) => exchange
                .account(self.user)
                .positions()
                .await
                .unwrap()
                .iter()
                .find(|p| p.symbol == symbol)
                .and_then(|p| p.trailing_stop_price),
            Exchange::Bybit(fake) => fake.trailing_stop_price(KEY, symbol),
        }
    }

    /// Hands the worker every event of what the venue has done so far.
    async fn pump(&mut self) {
        self.venue.catch_up().await.expect("the venue catches up");
        while let Ok(event) = self.events.try_recv() {
            self.worker.on_venue_event(event, self.now).await;
        }
    }

    /// Loses every event so far, as a worker that was not running would.
    async fn miss_events(&mut self) {
        self.venue.catch_up().await.expect("the venue catches up");
        while self.events.try_recv().is_ok() {}
    }

    async fn trades(&self) -> Vec<Trade> {
        trades(&self.store, self.user).await
    }

    async fn only_trade(&self) -> Trade {
        let all = self.trades().await;
        assert_eq!(all.len(), 1, "{all:#?}");
        all.into_iter().next().unwrap()
    }

    async fn log(&self) -> Vec<String> {
        let mut all = self.store.recent_logs(self.user, None, 500).await.unwrap();
        all.reverse();
        all.into_iter().map(|e| e.message).collect()
    }

    async fn logged(&self, needle: &str) -> bool {
        self.log().await.iter().any(|m| m.contains(needle))
    }

    async fn set(&mut self, change: impl FnOnce(&mut BotSettings)) {
        let record = self.store.settings_or_default(self.user, 0).await.unwrap();
        let mut settings = record.settings;
        change(&mut settings);
        self.store
            .update_settings(self.user, record.id, &settings, 0)
            .await
            .unwrap();
        self.worker.handle(Command::SettingsChanged, self.now).await;
    }
}

impl Exchange {
    /// A new last price: the exchange's stops fire on it.
    fn set_price(&self, symbol: &str, price: Decimal, now: DateTime<Utc>) {
        match self {
            Exchange::Paper(paper) => paper.on_tick(symbol, price, now.timestamp_millis()),
            Exchange::Bybit(fake) => fake.set_price(symbol, price),
        }
    }
}

async fn an_entry_happens_only_on_the_transition_into_a_strong_signal(on: On) {
    let mut desk = Desk::new(on, classic()).await;
    desk.signal("BTCUSDT", "NEUTRAL").await;
    desk.signal("BTCUSDT", "BUY").await;
    assert!(
        desk.trades().await.is_empty(),
        "BUY is not a trading signal"
    );
    desk.signal("BTCUSDT", "STRONG_BUY").await;
    let t = desk.only_trade().await;
    assert_eq!((t.side, t.status), (PositionSide::Long, TradeStatus::Open));
    // 100 USDT x 10 / 30,000 = 0.0333 -> 0.033 at 30,000.
    assert_eq!(t.qty, dec!(0.033));
    assert_eq!(t.entry_price, Some(dec!(30000)));
    assert_eq!(t.margin, dec!(99));
    assert_eq!(t.fees, dec!(0.5445), "0.055 % of 990");
    assert!(t.signal_id.is_some() && t.signal_price == Some(dec!(30000)));
    // The same signal again, or another candle of it, opens nothing more.
    desk.signal("BTCUSDT", "STRONG_BUY").await;
    assert_eq!(desk.trades().await.len(), 1);
    // A symbol the worker has never seen: its first signal says nothing about a change.
    desk.signal("SOLUSDT", "STRONG_BUY").await;
    assert_eq!(desk.trades().await.len(), 1);
    assert!(desk.logged("BTCUSDT: opened long 0.033 at 30000").await);
}

async fn reverse_mode_trades_against_the_signal(on: On) {
    let mut desk = Desk::new(
        on,
        BotSettings {
            reverse_mode: true,
            ..classic()
        },
    )
    .await;
    desk.signal("BTCUSDT", "STRONG_BUY").await;
    assert_eq!(desk.only_trade().await.side, PositionSide::Short);
    desk.signal("ETHUSDT", "STRONG_SELL").await;
    assert_eq!(desk.trades().await[1].side, PositionSide::Long);
}

async fn each_limit_skips_with_a_log_line_saying_why(on: On) {
    let mut desk = Desk::new(
        on,
        BotSettings {
            max_trades: 1,
            ..classic()
        },
    )
    .await;
    desk.signal("BTCUSDT", "STRONG_BUY").await;
    desk.signal("ETHUSDT", "STRONG_SELL").await;
    assert_eq!(desk.trades().await.len(), 1);
    assert!(
        desk.logged("ETHUSDT STRONG_SELL: skipped, 1 trades are open already (max_trades)")
            .await
    );

    desk.set(|s| {
        s.max_trades = 5;
        s.max_total_usdt = dec!(150);
    })
    .await;
    desk.signal("ETHUSDT", "NEUTRAL").await;
    desk.signal("ETHUSDT", "STRONG_SELL").await;
    assert_eq!(desk.trades().await.len(), 1);
    assert!(desk.logged("would exceed max_total_usdt 150").await);

    // 0.4 USDT x 10 = 4 USDT of ETH: below the 5 USDT minimum order value after rounding.
    desk.set(|s| {
        s.max_total_usdt = dec!(1000);
        s.max_trade_usdt = dec!(0.4);
    })
    .await;
    desk.signal("ETHUSDT", "NEUTRAL").await;
    desk.signal("ETHUSDT", "STRONG_SELL").await;
    assert_eq!(desk.trades().await.len(), 1);
    assert!(desk.logged("below the instrument's minimum").await);
}

async fn the_stop_loss_sits_at_the_setting_and_closes_the_trade(on: On) {
    let mut desk = Desk::new(on, classic()).await;
    desk.signal("BTCUSDT", "STRONG_BUY").await;
    let position = desk.venue.positions().await.unwrap().remove(0);
    assert_eq!(
        position.stops.stop_loss,
        Some(dec!(28500)),
        "5 % below 30,000"
    );
    assert_eq!(desk.only_trade().await.stop_loss, Some(dec!(28500)));
    desk.price("BTCUSDT", dec!(28600)).await;
    assert_eq!(desk.only_trade().await.status, TradeStatus::Open);
    desk.price("BTCUSDT", dec!(28500)).await;
    let t = desk.only_trade().await;
    assert_eq!(t.status, TradeStatus::Closed);
    assert_eq!(t.close_reason.as_deref(), Some("stop_loss"));
    assert_eq!(t.exit_price, Some(dec!(28500)));
    // (28,500 - 30,000) x 0.033 - opening fee 0.5445 - closing fee 0.517275
    assert_eq!(t.pnl, dec!(-49.5) - dec!(0.5445) - dec!(0.517275));
    assert!(desk.venue.positions().await.unwrap().is_empty());
}

async fn the_first_take_profit_closes_half_and_moves_the_stop_to_break_even_then_the_next(on: On) {
    let mut desk = Desk::new(on, classic()).await;
    desk.signal("BTCUSDT", "STRONG_BUY").await;
    desk.price("BTCUSDT", dec!(32999.9)).await;
    assert_eq!(desk.only_trade().await.tp_step, 0);
    desk.price("BTCUSDT", dec!(33000)).await;
    let t = desk.only_trade().await;
    assert_eq!(t.tp_step, 1);
    assert_eq!(
        t.open_qty,
        dec!(0.017),
        "half of 0.033 rounded down is 0.016"
    );
    assert_eq!(t.stop_loss, Some(dec!(30000)), "break-even");
    let position = desk.venue.positions().await.unwrap().remove(0);
    assert_eq!(position.stops.stop_loss, Some(dec!(30000)));
    assert!(desk.logged("stop loss moved to break-even at 30000").await);

    // The next level is 10 % further: 36,000; half of 0.017 is 0.008.
    desk.price("BTCUSDT", dec!(35000)).await;
    assert_eq!(desk.only_trade().await.tp_step, 1);
    desk.price("BTCUSDT", dec!(36000)).await;
    let t = desk.only_trade().await;
    assert_eq!((t.tp_step, t.open_qty), (2, dec!(0.009)));
    // A fall back to the entry closes the rest at break-even.
    desk.price("BTCUSDT", dec!(30000)).await;
    let t = desk.only_trade().await;
    assert_eq!(t.status, TradeStatus::Closed);
    assert_eq!(t.close_reason.as_deref(), Some("stop_loss"));
    assert!(t.pnl > Decimal::ZERO, "two take profits banked: {}", t.pnl);
    // Each execution (the entry, two take profits, the stop) is a fill of the 24 h volume.
    let volume = desk
        .store
        .fill_volume_between(desk.user, AccountVenue::Paper, i64::MIN, i64::MAX)
        .await
        .unwrap();
    assert_eq!(volume, t.volume);
    assert_eq!(volume, dec!(0.033) * dec!(30000) + t.exit_value);
}

async fn the_trailing_stop_activates_in_favour_and_only_tightens(on: On) {
    let mut desk = Desk::new(on, BotSettings::default()).await; // activation 1 %, step 0.5 %
    desk.signal("BTCUSDT", "STRONG_BUY").await;
    // The distance travels to the venue with the activation price (Bybit's position list
    // does not echo the activation price back; the steps below show it is kept).
    let position = desk.venue.positions().await.unwrap().remove(0);
    let distance = position.stops.trailing.map(|t| t.distance);
    assert_eq!(distance, Some(dec!(150)), "0.5 % of the 30,000 entry");
    desk.price("BTCUSDT", dec!(30200)).await;
    assert_eq!(
        desk.trailing_stop_price("BTCUSDT").await,
        None,
        "not yet 1 % in favour"
    );
    desk.price("BTCUSDT", dec!(30300)).await;
    assert_eq!(
        desk.trailing_stop_price("BTCUSDT").await,
        Some(dec!(30150)),
        "150 behind"
    );
    desk.price("BTCUSDT", dec!(30600)).await;
    assert_eq!(desk.trailing_stop_price("BTCUSDT").await, Some(dec!(30450)));
    desk.price("BTCUSDT", dec!(30500)).await;
    assert_eq!(
        desk.trailing_stop_price("BTCUSDT").await,
        Some(dec!(30450)),
        "never loosens"
    );
    desk.price("BTCUSDT", dec!(30450)).await;
    let t = desk.only_trade().await;
    assert_eq!(t.close_reason.as_deref(), Some("trailing"));
    assert_eq!(t.exit_price, Some(dec!(30450)));
}

async fn forbidden_hours_across_midnight_and_forbidden_days_in_the_users_zone(on: On) {
    let mut desk = Desk::new(
        on,
        BotSettings {
            user_timezone: "Asia/Tokyo".into(),
            forbidden_hours_enabled: true,
            forbidden_hours: vec![[23, 1]],
            ..classic()
        },
    )
    .await;
    // 14:30 UTC is 23:30 in Tokyo.
    desk.now = Utc.with_ymd_and_hms(2026, 11, 23, 14, 30, 0).unwrap();
    desk.signal("BTCUSDT", "STRONG_BUY").await;
    assert!(desk.trades().await.is_empty());
    assert!(desk.logged("inside the forbidden hours 23:00-1:00").await);
    // 15:59 UTC is 00:59: still forbidden; 16:00 UTC is 01:00: allowed.
    desk.now = Utc.with_ymd_and_hms(2026, 11, 23, 15, 59, 0).unwrap();
    desk.signal("BTCUSDT", "NEUTRAL").await;
    desk.signal("BTCUSDT", "STRONG_BUY").await;
    assert!(desk.trades().await.is_empty());
    desk.now = Utc.with_ymd_and_hms(2026, 11, 23, 16, 0, 0).unwrap();
    desk.signal("BTCUSDT", "NEUTRAL").await;
    desk.signal("BTCUSDT", "STRONG_BUY").await;
    assert_eq!(desk.trades().await.len(), 1);

    // Sunday in Tokyo: Saturday 2026-11-28 20:00 UTC is Sunday 05:00 there.
    desk.set(|s| {
        s.forbidden_hours_enabled = false;
        s.forbidden_days_enabled = true;
        s.forbidden_days = vec![6];
    })
    .await;
    desk.now = Utc.with_ymd_and_hms(2026, 11, 28, 20, 0, 0).unwrap();
    desk.signal("ETHUSDT", "STRONG_SELL").await;
    assert_eq!(desk.trades().await.len(), 1);
    assert!(desk.logged("Sun is a forbidden day in Asia/Tokyo").await);
    // Open positions are still managed in a forbidden window.
    desk.price("BTCUSDT", dec!(28500)).await;
    assert_eq!(desk.only_trade().await.status, TradeStatus::Closed);
}

fn martingale() -> BotSettings {
    BotSettings {
        bot_mode: BotMode::Martingale,
        martingale_initial_margin: dec!(20),
        martingale_step: dec!(2),
        martingale_max_depth: 3,
        ..classic()
    }
}

async fn martingale_steps_double_until_the_depth_limit_ends_the_chain_in_a_loss(on: On) {
    let mut desk = Desk::new(on, martingale()).await;
    desk.signal("BTCUSDT", "STRONG_BUY").await;
    let first = desk.only_trade().await;
    assert_eq!(first.chain_step, Some(1));
    assert_eq!(first.qty, dec!(0.006), "20 USDT x 10 / 30,000");
    let chain = first.chain_id.unwrap();
    // Each stop loss opens the next step at once with twice the margin, same direction.
    desk.price("BTCUSDT", dec!(28500)).await;
    let trades = desk.trades().await;
    assert_eq!(trades.len(), 2);
    assert_eq!(
        (trades[1].chain_id, trades[1].chain_step),
        (Some(chain), Some(2))
    );
    assert_eq!(
        trades[1].qty,
        dec!(0.014),
        "40 USDT x 10 / 28,500 = 0.01403"
    );
    assert_eq!(trades[1].side, PositionSide::Long);
    // The symbol's signal turned: the next step follows the current strong signal.
    desk.signal("BTCUSDT", "STRONG_SELL").await;
    assert_eq!(
        desk.trades().await.len(),
        2,
        "a chain's symbol does not start another"
    );
    desk.price("BTCUSDT", dec!(27075)).await; // 5 % under 28,500
    let trades = desk.trades().await;
    assert_eq!(trades.len(), 3);
    assert_eq!(trades[2].chain_step, Some(3));
    assert_eq!(trades[2].side, PositionSide::Short);
    assert_eq!(
        trades[2].qty,
        dec!(0.029),
        "80 USDT x 10 / 27,075 = 0.02954"
    );
    // Depth 3 reached: a third loss ends the chain.
    desk.price("BTCUSDT", dec!(28500)).await;
    assert_eq!(desk.trades().await.len(), 3);
    assert!(desk.store.open_chains(desk.user).await.unwrap().is_empty());
    assert!(
        desk.logged(&format!(
            "martingale chain #{chain} ended in a loss after 3 trade(s)"
        ))
        .await
    );
}

async fn a_profit_ends_the_chain_and_max_active_chains_holds_back_new_ones(on: On) {
    let mut desk = Desk::new(
        on,
        BotSettings {
            use_trailing_stop: true,
            ..martingale()
        },
    )
    .await;
    desk.signal("BTCUSDT", "STRONG_BUY").await;
    desk.signal("ETHUSDT", "STRONG_SELL").await;
    assert_eq!(desk.trades().await.len(), 1, "one active chain at most");
    assert!(desk.logged("martingale_max_active_chains 1").await);
    // The trailing stop takes a profit: the chain is won and closed.
    desk.price("BTCUSDT", dec!(30600)).await;
    desk.price("BTCUSDT", dec!(30450)).await;
    let t = desk.only_trade().await;
    assert!(t.pnl > Decimal::ZERO);
    assert!(desk.store.open_chains(desk.user).await.unwrap().is_empty());
    assert!(desk.logged("won after 1 trade(s)").await);
    // Now a new chain may start.
    desk.signal("ETHUSDT", "NEUTRAL").await;
    desk.signal("ETHUSDT", "STRONG_SELL").await;
    let chains = desk.store.open_chains(desk.user).await.unwrap();
    assert_eq!(chains.len(), 1);
    assert_eq!(
        (chains[0].symbol.as_str(), chains[0].status),
        ("ETHUSDT", ChainStatus::Open)
    );
}

async fn a_settings_change_is_used_at_the_next_decision(on: On) {
    let mut desk = Desk::new(on, classic()).await;
    desk.set(|s| {
        s.max_trade_usdt = dec!(300);
        s.leverage = 5;
        s.initial_stop_loss_pct = dec!(2);
    })
    .await;
    desk.signal("BTCUSDT", "STRONG_BUY").await;
    let t = desk.only_trade().await;
    assert_eq!(t.leverage, 5);
    assert_eq!(t.qty, dec!(0.05), "300 x 5 / 30,000");
    assert_eq!(t.stop_loss, Some(dec!(29400)));
}

async fn a_manual_close_books_the_trade_and_close_all_closes_every_one(on: On) {
    let mut desk = Desk::new(on, classic()).await;
    desk.signal("BTCUSDT", "STRONG_BUY").await;
    desk.signal("ETHUSDT", "STRONG_SELL").await;
    desk.price("BTCUSDT", dec!(30300)).await;
    let id = desk.trades().await[0].id;
    let (reply, answer) = oneshot::channel();
    desk.worker
        .handle(
            Command::Close {
                trade_id: id,
                reply,
            },
            desk.now,
        )
        .await;
    let closed = answer.await.unwrap().unwrap();
    assert_eq!(closed.close_reason.as_deref(), Some("manual"));
    assert_eq!(closed.exit_price, Some(dec!(30300)));
    let (reply, answer) = oneshot::channel();
    desk.worker
        .handle(Command::CloseAll { reply }, desk.now)
        .await;
    assert_eq!(answer.await.unwrap().unwrap(), 1);
    desk.pump().await;
    assert!(desk
        .trades()
        .await
        .iter()
        .all(|t| t.status == TradeStatus::Closed));
    assert!(desk.venue.positions().await.unwrap().is_empty());
}

async fn reconciliation_adopts_unknown_positions_and_books_closes_made_while_away(on: On) {
    let mut desk = Desk::new(on, classic()).await;
    desk.signal("BTCUSDT", "STRONG_BUY").await;
    // While the worker is away: its position is stopped out, and someone opens ETH by hand.
    desk.now += Duration::minutes(5);
    desk.price_while_away("BTCUSDT", dec!(28000));
    desk.order_by_hand("ETHUSDT", Side::Sell, dec!(0.5)).await;
    desk.miss_events().await;
    desk.worker.reconcile(desk.now).await;
    let trades = desk.trades().await;
    assert_eq!(trades.len(), 2);
    assert_eq!(trades[0].status, TradeStatus::Closed);
    assert_eq!(trades[0].close_reason.as_deref(), Some("stop_loss"));
    assert_eq!(
        trades[0].exit_price,
        Some(dec!(28000)),
        "the gap fill, from closed pnl"
    );
    assert_eq!(
        (trades[1].symbol.as_str(), trades[1].status),
        ("ETHUSDT", TradeStatus::Open)
    );
    assert_eq!(trades[1].side, PositionSide::Short);
    // The adopted position got its stop loss.
    let position = desk.venue.positions().await.unwrap().remove(0);
    assert_eq!(position.stops.stop_loss, Some(dec!(2100)));
    assert!(desk.logged("adopted a ETHUSDT short position").await);
    // Reconciling again changes nothing.
    desk.worker.reconcile(desk.now).await;
    assert_eq!(
        desk.trades().await,
        trades_with_stop(trades.clone(), dec!(2100))
    );
    // The fills seen: BTC's entry and its stop found while away, ETH's adoption.
    let volume = desk
        .store
        .fill_volume_between(desk.user, AccountVenue::Paper, i64::MIN, i64::MAX)
        .await
        .unwrap();
    assert_eq!(volume, trades[0].volume + trades[1].volume);
}

fn trades_with_stop(mut trades: Vec<Trade>, stop: Decimal) -> Vec<Trade> {
    trades[1].stop_loss = Some(stop);
    trades
}

async fn deals_are_sent_to_the_users_chat_and_a_hanging_telegram_never_holds_an_order(on: On) {
    let telegram = fake_telegram::FakeTelegram::start().await;
    // The first answer is a 429 with retry_after 1: the open message comes again, once.
    telegram.script(&[fake_telegram::Reply::TooManyRequests { retry_after: 1 }]);
    let mut desk = Desk::with_telegram(
        on,
        BotSettings {
            telegram_id: "555".into(),
            ..classic()
        },
        telegram.notifier(),
    )
    .await;
    desk.signal("BTCUSDT", "STRONG_BUY").await;
    desk.price("BTCUSDT", dec!(28500)).await;
    let requests = telegram.wait_for(3).await;
    assert!(requests.iter().all(|r| r.chat() == "555"));
    assert_eq!(
        requests[0].text(),
        requests[1].text(),
        "the 429 was retried"
    );
    assert!(requests[1].at - requests[0].at >= std::time::Duration::from_secs(1));
    assert!(requests[1].text().contains("BTCUSDT"));
    assert!(
        requests[2].text().contains("28500"),
        "{}",
        requests[2].text()
    );

    // Telegram stops answering at all: orders still go through at once.
    telegram.always(fake_telegram::Reply::Hang);
    let opened = tokio::time::timeout(std::time::Duration::from_secs(2), async {
        desk.signal("ETHUSDT", "STRONG_SELL").await;
        desk.price("ETHUSDT", dec!(1990)).await;
    })
    .await;
    assert!(opened.is_ok(), "trading waited for Telegram");
    assert_eq!(desk.trades().await[1].status, TradeStatus::Open);
}

async fn the_daily_summary_counts_the_local_day_that_just_ended(on: On) {
    let telegram = fake_telegram::FakeTelegram::start().await;
    let mut desk = Desk::with_telegram(
        on,
        BotSettings {
            telegram_id: "777".into(),
            user_timezone: "Asia/Tokyo".into(),
            ..classic()
        },
        telegram.notifier(),
    )
    .await;
    // Tokyo's 2026-11-23 runs from 2026-11-22 15:00 UTC to 2026-11-23 15:00 UTC.
    let closed_at = |h: u32, m: u32| Utc.with_ymd_and_hms(2026, 11, 23, h, m, 0).unwrap();
    for (when, pnl) in [
        (
            Utc.with_ymd_and_hms(2026, 11, 22, 14, 59, 0).unwrap(),
            dec!(100),
        ), // the day before
        (
            Utc.with_ymd_and_hms(2026, 11, 22, 15, 0, 0).unwrap(),
            dec!(10),
        ),
        (closed_at(9, 0), dec!(-4)),
        (closed_at(14, 59), dec!(0)),
        (closed_at(15, 0), dec!(50)), // the next day
    ] {
        let mut t = desk
            .store
            .insert_trade(&seeded_trade(desk.user, when))
            .await
            .unwrap();
        t.status = TradeStatus::Closed;
        t.pnl = pnl;
        t.closed_at = Some(when.timestamp_millis());
        desk.store.save_trade(&t).await.unwrap();
    }
    desk.worker.send_daily_summary(closed_at(15, 0)).await;
    let sent = telegram.wait_for(1).await;
    assert_eq!(sent[0].chat(), "777");
    let text = sent[0].text();
    assert!(text.starts_with("Daily summary 2026-11-23"), "{text}");
    assert!(text.contains("Trades: 3 (wins 1, losses 2)"), "{text}");
    assert!(text.contains("PnL: +6.00 USDT"), "{text}");
    // Off: nothing is sent.
    desk.set(|s| s.telegram_notify_stats = false).await;
    desk.worker.send_daily_summary(closed_at(15, 0)).await;
    tokio::time::sleep(std::time::Duration::from_millis(1200)).await;
    assert_eq!(telegram.requests().len(), 1);
}

fn seeded_trade(user_id: i64, at: DateTime<Utc>) -> Trade {
    Trade {
        id: 0,
        user_id,
        symbol: "BTCUSDT".into(),
        side: PositionSide::Long,
        status: TradeStatus::Pending,
        client_order_id: format!("seed-{}", at.timestamp_millis()),
        leverage: 10,
        margin: dec!(100),
        qty: dec!(0.01),
        open_qty: dec!(0),
        entry_price: Some(dec!(30000)),
        exit_price: None,
        closed_qty: dec!(0.01),
        exit_value: dec!(0),
        pnl: dec!(0),
        fees: dec!(0),
        funding: Decimal::ZERO,
        volume: dec!(0),
        stop_loss: None,
        tp_step: 0,
        close_reason: Some("stop_loss".into()),
        chain_id: None,
        chain_step: None,
        signal_id: None,
        signal_at: None,
        signal_price: None,
        created_at: at.timestamp_millis(),
        opened_at: Some(at.timestamp_millis()),
        closed_at: None,
        // The desk's account (desk_support): what the worker books its own trades on.
        venue: Some(AccountVenue::Paper),
    }
}

/// A PENDING BTC long in the books whose opening order is `client_order_id` (0.01 at market),
/// and that order, as a worker leaves them when it dies right after sending it.
async fn pending_btc_buy(desk: &Desk, client_order_id: &str) -> (Trade, OrderRequest) {
    let mut pending = seeded_trade(desk.user, desk.now);
    pending.client_order_id = client_order_id.into();
    pending.closed_qty = dec!(0);
    pending.close_reason = None;
    pending.opened_at = None;
    pending.entry_price = None;
    let pending = desk.store.insert_trade(&pending).await.unwrap();
    let order = OrderRequest {
        client_order_id: client_order_id.into(),
        symbol: "BTCUSDT".into(),
        side: Side::Buy,
        qty: dec!(0.01),
        reduce_only: false,
    };
    (pending, order)
}

async fn a_pending_trade_is_settled_by_the_venue_and_its_order_id_never_opens_twice(on: On) {
    let mut desk = Desk::new(on, classic()).await;
    // A crash between sending the order and storing the fill: the store says PENDING.
    let (pending, order) = pending_btc_buy(&desk, "sd-crash-1").await;
    let first = desk.venue.submit_market_order(order.clone()).await.unwrap();
    // The retried submit answers the first fill and opens nothing more.
    let again = desk.venue.submit_market_order(order).await.unwrap();
    assert_eq!(first, again);
    assert_eq!(desk.venue.positions().await.unwrap()[0].qty, dec!(0.01));
    // Another PENDING trade whose order never reached the venue.
    let mut lost = seeded_trade(desk.user, desk.now);
    lost.symbol = "ETHUSDT".into();
    lost.client_order_id = "sd-crash-2".into();
    lost.close_reason = None;
    let lost = desk.store.insert_trade(&lost).await.unwrap();
    desk.miss_events().await;

    desk.worker.reconcile(desk.now).await;
    let settled = desk
        .store
        .trade(desk.user, pending.id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(settled.status, TradeStatus::Open);
    assert_eq!(settled.entry_price, Some(dec!(30000)));
    assert_eq!(settled.open_qty, dec!(0.01));
    let position = desk.venue.positions().await.unwrap().remove(0);
    assert!(position.stops.stop_loss.is_some(), "its stop loss was set");
    let cancelled = desk.store.trade(desk.user, lost.id).await.unwrap().unwrap();
    assert_eq!(cancelled.status, TradeStatus::Cancelled);
    assert_eq!(desk.trades().await.len(), 2, "nothing adopted twice");
}

async fn a_stop_loss_the_price_went_through_while_away_closes_the_position_at_reconciliation(
    on: On,
) {
    let mut desk = Desk::new(on, classic()).await;
    // A crash after the opening fill and before the stop loss: the store says PENDING, the
    // venue holds the position unprotected, and the price falls through where the stop
    // (5 % below 30,000: 28,500) would have been.
    let (pending, order) = pending_btc_buy(&desk, "sd-crash-3").await;
    desk.venue.submit_market_order(order).await.unwrap();
    desk.now += Duration::minutes(1);
    desk.market.set_price("BTCUSDT", dec!(28000));
    desk.price_while_away("BTCUSDT", dec!(28000));
    desk.miss_events().await;

    let synced = desk.worker.reconcile(desk.now).await;
    assert!(synced, "the books are in sync: {:#?}", desk.log().await);
    desk.pump().await;
    assert!(
        desk.venue.positions().await.unwrap().is_empty(),
        "no position is left without a stop loss"
    );
    let closed = desk
        .store
        .trade(desk.user, pending.id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(closed.status, TradeStatus::Closed);
    assert_eq!(closed.entry_price, Some(dec!(30000)));
    assert_eq!(closed.exit_price, Some(dec!(28000)));
    assert!(
        desk.logged("closing the position").await,
        "{:#?}",
        desk.log().await
    );
    assert!(!desk.worker.is_out_of_sync());
}

/// Opens `qty` BTC on the venue with the opening order `client_order_id` and a stop or take
/// profit, then moves the price through it: a position that lived and ended while the
/// worker could not book it.
async fn position_ended_while_away(
    desk: &mut Desk,
    client_order_id: &str,
    stops: Stops,
    through: Decimal,
) {
    let order = OrderRequest {
        client_order_id: client_order_id.into(),
        symbol: "BTCUSDT".into(),
        side: Side::Buy,
        qty: dec!(0.01),
        reduce_only: false,
    };
    desk.venue.submit_market_order(order).await.unwrap();
    desk.venue.set_stops("BTCUSDT", stops).await.unwrap();
    desk.now += Duration::minutes(1);
    desk.market.set_price("BTCUSDT", through);
    desk.price_while_away("BTCUSDT", through);
    desk.miss_events().await;
}

/// An OPEN trade in the store whose opening order is `client_order_id`, as the worker wrote
/// it before the writes of its close were lost.
async fn open_trade_in_books(desk: &Desk, client_order_id: &str, entry: Decimal) -> Trade {
    let mut trade = seeded_trade(desk.user, desk.now);
    trade.client_order_id = client_order_id.into();
    trade.status = TradeStatus::Open;
    trade.entry_price = Some(entry);
    trade.qty = dec!(0.01);
    trade.open_qty = dec!(0.01);
    trade.pnl = Decimal::ZERO;
    trade.exit_price = None;
    trade.closed_qty = Decimal::ZERO;
    trade.exit_value = Decimal::ZERO;
    trade.closed_at = None;
    trade.close_reason = None;
    desk.store.insert_trade(&trade).await.unwrap()
}

async fn two_trades_on_one_symbol_closed_while_away_are_each_booked_with_their_own_result(on: On) {
    let mut desk = Desk::new(on, classic()).await;
    // A: long at 30,000, stopped at 29,000 (a loss). B: long at 29,000, its take profit at
    // 31,000 (a gain). Both on BTC, both ended while the worker was away, in that order.
    position_ended_while_away(
        &mut desk,
        "sd-away-a",
        Stops {
            stop_loss: Some(dec!(29000)),
            ..Stops::default()
        },
        dec!(29000),
    )
    .await;
    position_ended_while_away(
        &mut desk,
        "sd-away-b",
        Stops {
            stop_loss: Some(dec!(28000)),
            take_profit: Some(dec!(31000)),
            trailing: None,
        },
        dec!(31000),
    )
    .await;
    let a = open_trade_in_books(&desk, "sd-away-a", dec!(30000)).await;
    let b = open_trade_in_books(&desk, "sd-away-b", dec!(29000)).await;
    let venue_a = desk
        .venue
        .position_closes("BTCUSDT", "sd-away-a")
        .await
        .unwrap();
    let venue_b = desk
        .venue
        .position_closes("BTCUSDT", "sd-away-b")
        .await
        .unwrap();
    assert_eq!((venue_a.len(), venue_b.len()), (1, 1));
    assert!(venue_a[0].realized_pnl < Decimal::ZERO && venue_b[0].realized_pnl > Decimal::ZERO);

    assert!(desk.worker.reconcile(desk.now).await);
    let booked_a = desk.store.trade(desk.user, a.id).await.unwrap().unwrap();
    let booked_b = desk.store.trade(desk.user, b.id).await.unwrap().unwrap();
    for (booked, venue) in [(&booked_a, &venue_a[0]), (&booked_b, &venue_b[0])] {
        assert_eq!(booked.status, TradeStatus::Closed);
        assert_eq!(booked.pnl, venue.realized_pnl, "{booked:#?}");
        assert_eq!(booked.exit_price, Some(venue.exit_price));
    }
    assert_eq!(booked_a.close_reason.as_deref(), Some("stop_loss"));
    assert_eq!(booked_b.close_reason.as_deref(), Some("take_profit"));
    // Booking is idempotent: reconciling again changes nothing.
    let before = desk.trades().await;
    assert!(desk.worker.reconcile(desk.now).await);
    assert_eq!(desk.trades().await, before);
}

/// The same on PostgreSQL (when `TEST_DATABASE_URL` is set), its database refusing
/// connections as an administrator would cut it off, on paper.
#[tokio::test]
async fn a_close_during_a_postgres_outage_is_booked_after_it() {
    let Some(db) = TestDatabase::postgres_database().await else {
        return;
    };
    let trader = desk_support::trader_on(db, &classic()).await;
    let mut desk = Desk::on_store(On::Paper, Notifier::disabled(), trader).await;
    desk.signal("BTCUSDT", "STRONG_BUY").await;
    let opened = desk.only_trade().await;
    desk.db.allow_connections(false).await;
    desk.price("BTCUSDT", dec!(28000)).await;
    assert!(desk.worker.is_out_of_sync());
    desk.worker.resync(desk.now).await;
    assert!(
        desk.worker.is_out_of_sync(),
        "the database is still refusing"
    );
    desk.db.allow_connections(true).await;
    desk.worker.resync(desk.now).await;
    assert!(!desk.worker.is_out_of_sync());
    let closes = desk
        .venue
        .position_closes("BTCUSDT", &opened.client_order_id)
        .await
        .unwrap();
    let trade = desk.only_trade().await;
    assert_eq!(trade.status, TradeStatus::Closed);
    assert_eq!(trade.pnl, closes[0].realized_pnl);
    assert_eq!(trade.close_reason.as_deref(), Some("stop_loss"));
}

async fn a_close_during_a_store_outage_is_booked_after_it_and_no_entry_happens_meanwhile(on: On) {
    let mut desk = Desk::new(on, classic()).await;
    desk.signal("BTCUSDT", "STRONG_BUY").await;
    let opened = desk.only_trade().await;
    // What the bot's status reads (the supervisor holds the other end).
    let report = SyncReport::default();
    desk.worker.report_sync_to(report.clone());
    assert_eq!(report.out_of_sync(), None);
    // The database stops taking writes; the venue stops the trade out meanwhile.
    desk.store
        .on_every_connection("PRAGMA query_only = 1")
        .await
        .unwrap();
    desk.price("BTCUSDT", dec!(28000)).await;
    assert!(desk.worker.is_out_of_sync());
    let why = report.out_of_sync().expect("the status hears why");
    assert!(why.contains("BTCUSDT"), "{why}");
    // No entry while the books are not reconciled (the write would fail anyway, but the
    // worker must not even try: the venue would hold a position the books do not).
    let signal = StoredSignal {
        id: 0,
        user_id: desk.user,
        symbol: "ETHUSDT".into(),
        rating: "STRONG_BUY".into(),
        total: None,
        ma: None,
        osc: None,
        candle_time: desk.now.timestamp_millis(),
        source: "ratings".into(),
        created_at: desk.now.timestamp_millis(),
    };
    desk.worker.on_signal(&signal, desk.now).await;
    desk.pump().await;
    assert!(desk.venue.positions().await.unwrap().is_empty());
    desk.store
        .on_every_connection("PRAGMA query_only = 0")
        .await
        .unwrap();
    // Still out of sync until it reconciles; then the close is booked with the venue's pnl.
    assert!(report.out_of_sync().is_some());
    desk.worker.resync(desk.now).await;
    assert!(!desk.worker.is_out_of_sync());
    assert_eq!(report.out_of_sync(), None);
    let closes = desk
        .venue
        .position_closes("BTCUSDT", &opened.client_order_id)
        .await
        .unwrap();
    assert_eq!(closes.len(), 1);
    let trade = desk.only_trade().await;
    assert_eq!(trade.status, TradeStatus::Closed);
    assert_eq!(trade.close_reason.as_deref(), Some("stop_loss"));
    assert_eq!(trade.pnl, closes[0].realized_pnl);
    // Entries resume.
    desk.signal("ETHUSDT", "NEUTRAL").await;
    desk.signal("ETHUSDT", "STRONG_BUY").await;
    assert_eq!(desk.venue.positions().await.unwrap().len(), 1);
}

#[tokio::test]
async fn the_take_profit_ladder_fills_at_the_tick_that_reached_it_even_before_the_exchange_saw_it()
{
    let settings = BotSettings {
        take_profit_first_pct: dec!(4),
        take_profit_next_pct: dec!(4),
        ..classic()
    };
    let mut desk = Desk::new(On::Paper, settings).await;
    desk.signal("BTCUSDT", "STRONG_BUY").await;
    assert_eq!(desk.only_trade().await.entry_price, Some(dec!(30000)));
    // As in production, the exchange follows the market on a task of its own, which has not
    // run yet when the worker reacts: the worker hears each tick first.
    let Exchange::Paper(exchange) = &desk.exchange else {
        unreachable!("a paper desk")
    };
    let feed = exchange.spawn();
    for (level, price) in [(1, dec!(31200)), (2, dec!(32400))] {
        desk.now += Duration::seconds(1);
        desk.market.set_price("BTCUSDT", price);
        desk.worker.on_tick("BTCUSDT", price, desk.now).await;
        desk.pump().await;
        assert!(
            desk.logged(&format!("take profit {level} reached {price}"))
                .await,
            "{:#?}",
            desk.log().await
        );
    }
    feed.abort();
    let trade = desk.only_trade().await;
    assert_eq!(trade.tp_step, 2);
    // Half of 0.033 at +4 %, then half the rest at +8 %: exactly the tick prices.
    assert_eq!(trade.closed_qty, dec!(0.024));
    assert_eq!(
        trade.exit_value,
        dec!(31200) * dec!(0.016) + dec!(32400) * dec!(0.008)
    );
}

#[tokio::test]
async fn an_entry_keeps_its_margin_within_max_trade_usdt_with_slippage_against_it() {
    let (_db, store, user) = store_with_trader(&BotSettings {
        max_trade_usdt: dec!(50),
        ..classic()
    })
    .await;
    let now = Utc.with_ymd_and_hms(2026, 11, 23, 12, 0, 0).unwrap();
    let market = Arc::new(ManualMarket::new(
        vec![instrument("BTCUSDT")],
        now.timestamp_millis(),
    ));
    market.set_price("BTCUSDT", dec!(30000));
    // Paper's default slippage, 2 bps against every market order.
    let exchange = PaperExchange::new(market.clone(), PaperConfig::default(), Arc::new(NoJournal))
        .await
        .unwrap();
    exchange.on_tick("BTCUSDT", dec!(30000), now.timestamp_millis());
    let venue: Arc<dyn Venue> = Arc::new(exchange.account(user));
    let mut worker = worker(
        &store,
        user,
        &venue,
        &market,
        Notifier::disabled(),
        &["BTCUSDT"],
        now,
    )
    .await;
    let signal = store_signal(&store, user, "BTCUSDT", "STRONG_BUY", now).await;
    worker.on_signal(&signal, now).await;
    let trade = trades(&store, user).await.remove(0);
    assert_eq!(trade.status, TradeStatus::Open);
    assert_eq!(trade.entry_price, Some(dec!(30006)), "2 bps above 30,000");
    assert!(trade.margin <= dec!(50), "margin {}", trade.margin);
    let position = venue.positions().await.unwrap().remove(0);
    assert!(
        position.margin <= dec!(50),
        "venue margin {}",
        position.margin
    );
}

impl Desk {
    /// The user's alerts of `kind` once the alert writer has stored them in the state
    /// `raised` (5 s at most).
    async fn alert(&self, kind: &str, raised: bool) -> signaldesk_store::AlertRecord {
        for _ in 0..100 {
            let found = self
                .store
                .recent_alerts(self.user, 50)
                .await
                .unwrap()
                .into_iter()
                .find(|a| a.kind == kind);
            if let Some(alert) = found.filter(|a| a.cleared_at.is_none() == raised) {
                return alert;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        panic!("no {kind} alert (raised: {raised})");
    }

    /// A fresh transition into STRONG_BUY on `symbol`; answers why it opened nothing.
    async fn buy_signal(&mut self, symbol: &str) -> Option<String> {
        self.signal(symbol, "NEUTRAL").await;
        self.signal(symbol, "STRONG_BUY").await;
        self.worker.take_last_skip().map(|skip| skip.to_string())
    }
}

async fn the_daily_loss_breaker_stops_entries_until_local_midnight_and_open_trades_keep_their_stops(
    on: On,
) {
    let mut desk = Desk::new(
        on,
        BotSettings {
            // A stop loss costs 50.56 USDT of 10,000: 0.51 %.
            daily_loss_limit_pct: dec!(0.5),
            ..classic()
        },
    )
    .await;
    assert_eq!(desk.buy_signal("ETHUSDT").await, None);
    assert_eq!(desk.buy_signal("BTCUSDT").await, None);
    desk.price("BTCUSDT", dec!(28500)).await;
    assert_eq!(desk.trades().await[1].status, TradeStatus::Closed);
    assert!(
        desk.logged("Circuit breaker: the daily loss breaker tripped")
            .await
    );
    let alert = desk.alert("circuit_breaker", true).await;
    assert!(
        alert.detail.contains("50.56 USDT lost today"),
        "{}",
        alert.detail
    );

    desk.price("BTCUSDT", dec!(30000)).await;
    let skip = desk.buy_signal("BTCUSDT").await.expect("refused");
    assert!(skip.contains("daily loss breaker tripped"), "{skip}");
    assert!(skip.contains("until midnight (Europe/Moscow)"), "{skip}");
    assert!(
        desk.logged("BTCUSDT STRONG_BUY: skipped, the daily loss breaker")
            .await
    );
    assert_eq!(desk.trades().await.len(), 2);
    // The open ETH trade keeps its stop on the venue.
    let eth = desk.venue.resting_stops("ETHUSDT").await.unwrap().unwrap();
    assert_eq!(eth.stop_loss, Some(dec!(1900)));
    desk.price("ETHUSDT", dec!(1900)).await;
    assert_eq!(
        desk.trades().await[0].close_reason.as_deref(),
        Some("stop_loss")
    );

    // 23:59 in Moscow (20:59 UTC) is still the same day; 00:00 is the next.
    desk.now = Utc.with_ymd_and_hms(2026, 11, 23, 20, 59, 0).unwrap();
    assert!(desk.buy_signal("BTCUSDT").await.is_some());
    desk.now = Utc.with_ymd_and_hms(2026, 11, 23, 21, 0, 0).unwrap();
    assert_eq!(desk.buy_signal("BTCUSDT").await, None);
    assert_eq!(desk.trades().await.len(), 3);
    assert!(desk.logged("Circuit breaker reset").await);
    desk.alert("circuit_breaker", false).await;
}

async fn the_losses_in_a_row_breaker_stops_entries_for_its_pause(on: On) {
    let mut desk = Desk::new(
        on,
        BotSettings {
            max_losses_in_row: 2,
            losses_pause_minutes: 30,
            ..classic()
        },
    )
    .await;
    for _ in 0..2 {
        assert_eq!(desk.buy_signal("BTCUSDT").await, None);
        desk.price("BTCUSDT", dec!(28500)).await;
        desk.price("BTCUSDT", dec!(30000)).await;
    }
    assert!(desk
        .trades()
        .await
        .iter()
        .all(|t| t.status == TradeStatus::Closed));
    assert!(
        desk.logged("the losses-in-a-row breaker tripped: 2 losing trades in a row")
            .await
    );
    desk.alert("circuit_breaker", true).await;
    let skip = desk.buy_signal("ETHUSDT").await.expect("refused");
    assert!(skip.contains("no new entries for 30 min"), "{skip}");

    desk.now += Duration::minutes(29);
    assert!(desk.buy_signal("ETHUSDT").await.is_some());
    desk.now += Duration::minutes(1);
    assert_eq!(desk.buy_signal("ETHUSDT").await, None);
    desk.alert("circuit_breaker", false).await;
    // A third loss in a row does not trip it again: the next trip is at 4.
    desk.price("ETHUSDT", dec!(1900)).await;
    assert_eq!(desk.buy_signal("BTCUSDT").await, None);
}
