"""The Freqtrade side of the side-by-side backtest (issue 32): the busy case's exits.

Signal Desk's busy case (leverage 10, stop 0.2 %, take profits 0.4 %, trailing from 0.1 %
by 0.05 %, 3 trades of 100 USDT) in Freqtrade's terms, whose ratios include the leverage:
a 0.2 % price move at 10x is a stoploss of -0.02, 0.4 % a minimal_roi of 0.04, trailing
from 1 % profit by 0.5 %. Freqtrade's ROI closes the whole trade at 0.4 %, where Signal Desk
takes a part there and every 0.4 % after. The entries are a simple EMA cross and RSI rule,
long and short (busy like the issue's anchor strategy: about 150,000 trades a year of 18
symbols), not Signal Desk's ratings, so the two tools' trades differ; the comparison is time
and memory on the same candles with the same exit settings. Used by ft_offline.py; not part
of `make test`.
"""

from pandas import DataFrame

from freqtrade.strategy import IStrategy


class SideBySide(IStrategy):
    INTERFACE_VERSION = 3
    timeframe = "15m"
    can_short = True
    stoploss = -0.02
    minimal_roi = {"0": 0.04}
    trailing_stop = True
    trailing_stop_positive = 0.005
    trailing_stop_positive_offset = 0.01
    trailing_only_offset_is_reached = True
    use_exit_signal = False
    process_only_new_candles = True
    startup_candle_count = 50

    def populate_indicators(self, df: DataFrame, metadata: dict) -> DataFrame:
        df["ema_fast"] = df["close"].ewm(span=9, adjust=False).mean()
        df["ema_slow"] = df["close"].ewm(span=21, adjust=False).mean()
        delta = df["close"].diff()
        gain = delta.clip(lower=0).ewm(alpha=1 / 14, adjust=False).mean()
        loss = (-delta.clip(upper=0)).ewm(alpha=1 / 14, adjust=False).mean()
        df["rsi"] = 100 - 100 / (1 + gain / loss)
        return df

    def populate_entry_trend(self, df: DataFrame, metadata: dict) -> DataFrame:
        # the candle where the fast EMA crosses the slow one and the 3 after,
        # unless RSI is past 70 (long) or 30 (short)
        up = df["ema_fast"] > df["ema_slow"]
        crossed = (up != up.shift(1)).astype(int).rolling(4, min_periods=1).max() > 0
        df.loc[crossed & up & (df["rsi"] < 70) & (df["volume"] > 0), "enter_long"] = 1
        df.loc[crossed & ~up & (df["rsi"] > 30) & (df["volume"] > 0), "enter_short"] = 1
        return df

    def populate_exit_trend(self, df: DataFrame, metadata: dict) -> DataFrame:
        return df

    def leverage(self, pair, current_time, current_rate, proposed_leverage, max_leverage,
                 entry_tag, side, **kwargs) -> float:
        return 10.0
