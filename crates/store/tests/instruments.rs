//! Bybit's instruments as `candles fetch` stores them, on every database: read back exactly,
//! tiers in order, and a later fetch replaces the instrument and all its tiers.

use rust_decimal_macros::dec;
use signaldesk_core::market::{Instrument, RiskTier};
use signaldesk_store::test_support::TestDatabase;
use signaldesk_store::StoredInstrument;

fn tier(value: rust_decimal::Decimal, rate: rust_decimal::Decimal) -> RiskTier {
    RiskTier {
        risk_limit_value: value,
        maintenance_margin_rate: rate,
        mm_deduction: dec!(0),
        max_leverage: dec!(12.5),
    }
}

fn wif(
    tick_size: rust_decimal::Decimal,
    tiers: Vec<RiskTier>,
    fetched_at: i64,
) -> StoredInstrument {
    StoredInstrument {
        instrument: Instrument {
            symbol: "WIFUSDT".into(),
            tick_size,
            qty_step: dec!(5),
            min_qty: dec!(10),
            min_notional: dec!(5),
            max_leverage: 25,
        },
        risk_tiers: tiers,
        fetched_at,
    }
}

#[tokio::test]
async fn an_instrument_is_read_back_with_its_tiers_and_a_fetch_replaces_them() {
    for (db, store) in TestDatabase::all_connected().await {
        assert_eq!(
            store.instrument("WIFUSDT").await.unwrap(),
            None,
            "{}",
            db.url
        );

        let mut second = tier(dec!(400000), dec!(0.03));
        second.mm_deduction = dec!(2000.5);
        let first = wif(
            dec!(0.0005),
            vec![
                tier(dec!(200000), dec!(0.02)),
                second,
                tier(dec!(600000), dec!(0.04)),
            ],
            1_000,
        );
        store.save_instrument(&first).await.unwrap();
        let read = store.instrument("WIFUSDT").await.unwrap();
        assert_eq!(read.as_ref(), Some(&first), "{}", db.url);
        assert_eq!(read.unwrap().maintenance_margin_rate(), Some(dec!(0.02)));

        // Bybit changed its tick and cut the table to one tier.
        let later = wif(dec!(0.0001), vec![tier(dec!(300000), dec!(0.025))], 2_000);
        store.save_instrument(&later).await.unwrap();
        assert_eq!(
            store.instrument("WIFUSDT").await.unwrap(),
            Some(later),
            "{}",
            db.url
        );
        assert_eq!(store.instrument("BTCUSDT").await.unwrap(), None);
    }
}
