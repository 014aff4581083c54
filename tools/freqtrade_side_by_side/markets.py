"""The contracts of the Freqtrade side-by-side backtest (issue 32), shared by its scripts.

The simulated market's specifications of its first symbols (crates/venue/src/market/sim/
symbols.rs: start price, tick, quantity step = minimum quantity, maximum leverage, daily
volatility; a 5 USDT minimum order) and risk tiers in the pattern of the fake Bybit's
(crates/fake-bybit/src/market.rs, `default_risk_tiers`). Offline there is no Bybit to ask,
so both tools are given these same made-up contracts: linear USDT perpetuals, contract
size 1. Not part of `make test`.
"""

from decimal import Decimal

# symbol, start price, tick, qty step (= min qty), max leverage, daily volatility
SYMBOLS = [
    ("BTCUSDT", 90000, "0.1", "0.001", 100, 0.025),
    ("ETHUSDT", 3000, "0.01", "0.01", 100, 0.035),
    ("SOLUSDT", 140, "0.01", "0.1", 100, 0.045),
    ("XRPUSDT", 2.2, "0.0001", "1", 75, 0.045),
    ("BNBUSDT", 600, "0.01", "0.01", 75, 0.03),
    ("DOGEUSDT", 0.16, "0.00001", "1", 75, 0.055),
    ("ADAUSDT", 0.45, "0.0001", "1", 75, 0.05),
    ("AVAXUSDT", 15, "0.001", "0.1", 50, 0.055),
    ("LINKUSDT", 14, "0.001", "0.1", 50, 0.05),
    ("DOTUSDT", 2.6, "0.0001", "0.1", 50, 0.05),
    ("LTCUSDT", 80, "0.01", "0.1", 50, 0.04),
    ("TRXUSDT", 0.28, "0.00001", "1", 50, 0.025),
    ("TONUSDT", 1.6, "0.0001", "0.1", 50, 0.05),
    ("SUIUSDT", 1.6, "0.0001", "10", 50, 0.06),
    ("NEARUSDT", 1.9, "0.001", "0.1", 50, 0.055),
    ("APTUSDT", 3.2, "0.0001", "0.01", 50, 0.055),
    ("ARBUSDT", 0.3, "0.0001", "0.1", 50, 0.06),
    ("OPUSDT", 0.45, "0.0001", "0.1", 50, 0.06),
    ("ATOMUSDT", 2.6, "0.001", "0.1", 50, 0.05),
    ("BCHUSDT", 500, "0.05", "0.01", 50, 0.04),
]
MIN_NOTIONAL = Decimal(5)


def risk_tiers(max_leverage):
    """[(risk limit value, maintenance rate, mm deduction, max leverage)], tier 1 first."""
    top = Decimal(max_leverage)
    first_im = 1 / top
    first_mm = first_im / 2
    tiers = []
    for n in range(1, 6):
        initial = first_im * (1 + Decimal("0.75") * (n - 1))
        if initial > 1:
            break
        mm = first_mm * n
        value = 20000 * top * n
        ded = tiers[-1][2] + tiers[-1][0] * (mm - tiers[-1][1]) if tiers else Decimal(0)
        tiers.append((value, mm.normalize(), ded.normalize(), round(1 / initial, 2)))
    return tiers


def pair(symbol):
    """BTCUSDT -> Freqtrade's BTC/USDT:USDT."""
    return f"{symbol[:-4]}/USDT:USDT"
