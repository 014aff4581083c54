import type { LogLevelFilter } from '@/features/logs/api/get-logs'
import type { LivePeriod } from '@/features/live-statistics/strings'
import type { StatsPeriod } from '@/features/period-statistics/api/get-stats'
import type { TradeSort } from '@/features/trades/utils/trades-filter'

/**
 * The English catalogue: every string of the web app, one section per feature. "English" is the
 * spec's own wording, word for word, so it keeps the spec's Russian strings (the login page, the
 * settings page, the chains table); `ru.ts` has the same keys in Russian.
 */
export const en = {
  /** UI strings of the app frame (spec section 2, Sidebar). */
  layout: {
    productName: 'Signal Desk',
    nav: {
      botStatus: 'Bot Status',
      statistics: 'Statistics',
      apiKeys: 'API Keys',
      settings: 'Settings',
      // Not in the spec's sidebar (issues 31 and 33); listed after its links, in a navigation of
      // their own.
      signals: 'Signals',
      // Not "Live Statistics": a link named with "Statistics" in it would be a second match for
      // the spec's Statistics link wherever a name is matched as a part (as Playwright does).
      liveStatistics: 'Live figures',
      trades: 'Trades',
      logs: 'Logs',
      backtest: 'Backtest',
      auditLog: 'Audit log',
    },
    toggleTheme: 'Toggle Theme',
    // Not worded by the spec (issue 33 point 7): the language switch beside Toggle Theme.
    toggleLanguage: 'Toggle Language',
    languageNames: { en: 'English', ru: 'Русский' },
    logout: 'Logout',
    openMenu: 'Open menu',
    // Not worded by the spec.
    navigationLabel: 'Main navigation',
    moreNavigationLabel: 'More pages',
    navigationTitle: 'Navigation',
    collapseSidebar: 'Collapse sidebar',
    expandSidebar: 'Expand sidebar',
    themeNames: { dark: 'Dark', light: 'Light', system: 'System' },
    signedInAs: 'Signed in as',
    // The live connection lost (issue 33): one banner instead of repeating toasts.
    connectionLost: {
      title: (time: string, zone: string) => `Connection lost since ${time} (${zone}).`,
      detail: 'What this page shows may be stale until it is back; the app tries again every 30 s.',
      retry: 'Retry now',
    },
    // Not worded by the spec: a page that failed to render, or whose code failed to load.
    routeError: {
      title: 'Something went wrong',
      detail:
        'This page stopped on an error; the bot on the server is not affected. Reload the page, or go back to the dashboard.',
      reload: 'Reload the page',
      dashboard: 'Go to the dashboard',
    },
    // Degraded mode (docs/reliability.md).
    degraded: {
      title: 'Database unreachable',
      detail: "Showing the last known data; the bot's books will catch up when it returns.",
    },
  },
  /** UI strings of the auth feature, verbatim from the spec (sections 2 and 8). */
  auth: {
    /** Placeholder while the stored session is checked. */
    loading: 'Загрузка...',
    /** Login heading ("Sign in"). */
    heading: 'Вход',
    usernameLabel: 'Имя пользователя',
    passwordLabel: 'Пароль',
    submit: 'Войти',
    /** Login failure. */
    invalidCredentials: 'Неверный логин или пароль',
    // Not in the spec (it only says both fields are required); worded to match the labels.
    usernameRequired: 'Введите имя пользователя',
    passwordRequired: 'Введите пароль',
    // The second step of a login with two-factor login on (issue 31); not worded by the spec.
    codeLabel: 'Код подтверждения',
    codeHint: 'Введите 6-значный код из приложения-аутентификатора или один из кодов восстановления.',
    codeRequired: 'Введите код',
    invalidCode: 'Неверный или уже использованный код',
    confirm: 'Подтвердить',
    back: 'Назад',
    productName: 'Signal Desk',
    productTagline: 'Automated futures trading on signals',
  },
  /**
   * UI strings of the dashboard, verbatim from the spec (sections 2 and 8). The Open Positions card is
   * not in the spec; its strings are marked below.
   */
  dashboard: {
    title: 'Dashboard',
    subtitle: 'Welcome back to your trading dashboard',
    /** The live connection badge on the heading. */
    connected: 'Connected',
    disconnected: 'Disconnected',
    /** The four cards, each with its change against 24 hours ago. */
    totalBalance: 'Total Balance',
    volume24h: '24h Volume',
    openTrades: 'Open Trades',
    totalTrades: 'Total Trades',
    /** The Balance card. */
    balance: 'Balance',
    equity: 'Equity',
    available: 'Available',
    margin: 'Margin',
    /** Spec section 8: the dashboard's load error. */
    loadError: (message: string) => `Error: ${message}`,

    // Not worded by the spec: the change line of the four cards and the spinner's accessible name.
    /** Shown instead of a percent when the figure of 24 hours ago is missing or 0. */
    noChange: '—',
    changeSuffix: 'vs 24h ago',
    trendUp: 'Up',
    trendDown: 'Down',
    loading: 'Loading dashboard',

    botStatus: {
      title: 'Bot Status',
      description: 'Current trading bot status and controls',
      running: 'Running',
      stopped: 'Stopped',
      signalsActive: 'Signals Active',
      signalsInactive: 'Signals Inactive',
      startBot: 'Start Bot',
      stopBot: 'Stop Bot',
      startSignals: 'Start Signals',
      stopSignals: 'Stop Signals',
      /** The two radio options for bot mode. */
      modeLabel: 'Bot mode',
      classic: 'Use classic bot',
      martingale: 'Use martingale',
      loading: 'Loading...',

      /** Toasts (spec section 8). */
      botStarted: 'Bot started',
      botStopped: 'Bot stopped',
      botToastText: 'Trading bot has been started or stopped successfully',
      signalsStarted: 'Signals started',
      signalsStopped: 'Signals stopped',
      signalsToastText: 'Signal fetching has been started or stopped successfully',
      controlFailed: 'Failed to control bot',
      fetchFailed: 'Failed to fetch bot settings',
      noSettings: 'No settings found',
      modeSaved: 'Settings saved successfully',
      modeSaveFailed: 'Failed to save settings',

      // Not worded by the spec: where the bot trades, and the confirmation before real money.
      /** Before the venue badge ("Paper", "Bybit Demo", "Bybit Real"; src/lib/venue.ts). */
      venueLabel: 'Trades on',
      /** Several servers on one database: the one running the bot stopped renewing its lease. */
      ownerSilent: (instance: string, silentSecs: number, withinSecs: number) =>
        `The server running the bot (${instance}) stopped answering ${String(silentSecs)} s ago: another server takes the bot over within ${String(withinSecs)} s.`,
      /** Issue 33: why a running bot opens no position, with the page that explains it. */
      notTrading: (detail: string) => `Not trading: ${detail}.`,
      /** The server's `not_trading.detail` sentences, made from its `facts` so each language has its own. */
      notTradingWhy: {
        workerStopped: 'the trading worker is not running: the logs say why',
        outOfSync: (cause: string) => `the books wait for a reconciliation with the venue: ${cause}`,
        signalsInactive: 'signals are off, so no signal reaches the bot',
        circuitBreaker: (cause: string) => `circuit breaker: ${cause}`,
        /** `weekday`: 0 = Monday, as the server counts. */
        forbiddenDay: (weekday: number, timezone: string) =>
          `${['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'][weekday] ?? String(weekday)} is a forbidden day in ${timezone}`,
        forbiddenHours: (localTime: string, start: number, end: number, timezone: string) =>
          `${localTime} in ${timezone} is inside the forbidden hours ${String(start)}:00-${String(end)}:00`,
        openPositions: (open: number, max: number) =>
          `${String(open)} positions are open (max_trades ${String(max)})`,
        openChains: (open: number, max: number) =>
          `${String(open)} martingale chains are open (martingale_max_active_chains ${String(max)})`,
      },
      stopLeavesOpen: (count: number, venue: string) =>
        `Stop Bot closes nothing: ${count === 1 ? '1 position stays' : `${String(count)} positions stay`} open on ${venue}, each with its stop loss and take profit on the exchange.`,
      // None of them named like a sidebar link ("Settings", "Statistics"…), which a name matched
      // as a part would find twice.
      notTradingLinks: {
        worker_stopped: 'Read the log',
        out_of_sync: 'Read why in the log',
        signals_inactive: 'Open the signals page',
        circuit_breaker: 'Read the log',
        forbidden_window: 'Change the forbidden days and hours',
        limit_reached: 'Change the limits',
      },
      realDialog: {
        title: 'Start trading with real money?',
        description:
          'Your active API key is a Bybit Real key: the bot will open positions with real money on your Bybit mainnet account. Losses are real and cannot be undone.',
        inputLabel: 'Type REAL to confirm',
        confirm: 'Start real trading',
        cancel: 'Cancel',
      },
    },

    // Not worded by the spec: the Open Positions card (English, like the rest of the dashboard).
    openPositions: {
      title: 'Open Positions',
      description: 'What the bot holds now. Mark price and PnL follow the live feed.',
      loading: 'Loading...',
      loadFailed: 'Failed to load open positions',
      retry: 'Retry',
      empty: 'No open positions',
      columns: {
        symbol: 'Symbol',
        side: 'Side',
        size: 'Size',
        entry: 'Entry',
        mark: 'Mark',
        pnl: 'PnL',
        funding: 'Funding',
        stop: 'Stop',
        // Issue 33: what the live feed carries about each position.
        liquidation: 'Liq. price',
        takeProfit: 'Next TP',
        margin: 'Margin (USDT)',
        openFor: 'Open for',
        actions: 'Actions',
      },
      openedAt: (time: string, zone: string) => `Opened ${time} (${zone})`,
      sides: { long: 'Long', short: 'Short' },
      leverage: (value: string) => `${value}x`,
      /** Shown for a mark price or PnL the live feed has not sent yet, and a missing stop. */
      none: '—',
      close: 'Close',
      closeLabel: (symbol: string) => `Close ${symbol}`,
      closeTitle: (symbol: string) => `Close the ${symbol} position?`,
      closeDescription: 'It is closed at the market price now. This cannot be undone.',
      closeConfirm: 'Close position',
      closeAll: 'Close all',
      closeAllTitle: (venue: string) => `Close all open positions on ${venue}?`,
      closeAllDescription: (count: number) =>
        `${count === 1 ? 'The open position is' : `All ${count} open positions are`} closed at the market price now. This cannot be undone.`,
      /** Issue 33: a running bot opens positions again on its next signal. */
      closeAllBotRuns:
        'The bot keeps running and opens new positions on its next signals unless you stop it too.',
      closeAllAndStop: 'Close all and stop the bot',
      stopFailedKeptOpen: 'The bot could not be stopped, so no position was closed',
      cancel: 'Cancel',
      /** Toasts. */
      closedToast: 'Position closed',
      closeFailed: 'Failed to close the position',
      closedAllToast: (count: number) => (count === 1 ? 'Closed 1 position' : `Closed ${count} positions`),
      closeAllFailed: 'Failed to close the positions',
    },
  },
  /** The alert banner's words (docs/alerts.md). Each alert's title, detail and action come from the server. */
  alerts: {
    since: (when: string) => `Since ${when}`,
    botAction: 'What the bot does:',
    region: 'Alerts',
  },
  /** UI strings of the signals feature, verbatim from the spec (section 2). */
  signals: {
    title: 'Trading Signals',
    /** Spec: 'Title "Trading Signals", plus "(Last N)" when limited'. */
    lastN: (limit: number) => `(Last ${limit})`,
    symbol: 'Symbol',
    signal: 'Signal',
    empty: 'No signals available',
    neutral: 'NEUTRAL',

    // Not worded by the spec.
    description: "Every symbol's latest signal, updated live.",
    loading: 'Loading...',
    loadFailed: 'Failed to load signals',
    retry: 'Retry',
    viewAll: 'View all',
  },
  /** UI strings of the logs feature, verbatim from the spec (section 2). */
  logs: {
    title: 'Trading Logs',
    levelOptions: {
      all: 'All Levels',
      info: 'Info',
      warning: 'Warning',
      error: 'Error',
    } satisfies Record<LogLevelFilter, string>,
    time: 'Time',
    level: 'Level',
    message: 'Message',

    // Not worded by the spec.
    /** Names the zone of the Time column (issue 33 point 5; the column keeps the spec's "Time"). */
    description: (zone: string) => `The bot's log, newest first, updated live. Times in ${zone}.`,
    levelLabel: 'Level',
    empty: 'No logs found',
    loading: 'Loading...',
    loadFailed: 'Failed to load logs',
    retry: 'Retry',
  },
  /** UI strings of the Trades page (issue 33; not worded by the spec). */
  trades: {
    title: 'Trades',
    description: (zone: string) => `Every trade of the account the bot trades on now. Times in ${zone}.`,
    accountHint: 'Trades of the account the bot trades on now',
    filters: 'Filters',
    period: 'Period',
    dateFrom: 'From',
    dateTo: 'To',
    symbol: 'Symbol',
    symbolPlaceholder: 'e.g. BTCUSDT',
    side: 'Side',
    status: 'Status',
    closeReason: 'Close reason',
    sort: 'Sort by',
    pageSize: 'Per page',
    any: 'Any',
    sides: { long: 'Long', short: 'Short' },
    statuses: { open: 'Open', closed: 'Closed', pending: 'Pending', cancelled: 'Cancelled' },
    closeReasons: {
      stop_loss: 'Stop loss',
      take_profit: 'Take profit',
      trailing: 'Trailing stop',
      manual: 'Manual',
      liquidation: 'Liquidation',
      reconciled: 'Reconciled',
      not_filled: 'Not filled',
      rejected: 'Rejected',
    } as Record<string, string>,
    sorts: {
      opened_desc: 'Opened, newest first',
      opened_asc: 'Opened, oldest first',
      closed_desc: 'Closed, newest first',
      closed_asc: 'Closed, oldest first',
      pnl_desc: 'PnL, highest first',
      pnl_asc: 'PnL, lowest first',
    } satisfies Record<TradeSort, string>,
    exportCsv: 'Export CSV',
    exportHint: 'Every trade matching the filter, as CSV (times in UTC and in your zone)',
    tableLabel: 'Trades',
    id: 'ID',
    opened: (zone: string) => `Opened (${zone})`,
    closed: (zone: string) => `Closed (${zone})`,
    openedShort: 'Opened',
    closedShort: 'Closed',
    quantity: 'Quantity',
    entry: 'Entry',
    exit: 'Exit',
    pnl: 'PnL (USDT)',
    chart: 'Chart',
    showChart: (id: number) => `Show the chart of trade #${String(id)}`,
    hideChart: (id: number) => `Hide the chart of trade #${String(id)}`,
    range: (first: string, last: string, count: string) => `${first}–${last} of ${count}`,
    previous: 'Previous page',
    next: 'Next page',
    pagination: 'Pages',
    loading: 'Loading...',
    empty: 'No trades match this filter.',
    loadFailed: 'Failed to load trades',
    retry: 'Retry',
  },
  /** UI strings of the statistics page with the period filter, verbatim from the spec (section 2). */
  periodStatistics: {
    title: 'Statistics',
    /** Not in the spec: the badge's tooltip beside the title. */
    accountHint: 'Figures of the account the bot trades on now',
    periodOptions: {
      all: 'All',
      '24h': 'Last 24 hours',
      '3d': 'Last 3 days',
      '7d': 'Last 7 days',
      month: 'This month',
      custom: 'Custom',
    } satisfies Record<StatsPeriod, string>,
    totalTrades: 'Total trades',
    winningTrades: 'Winning trades',
    losingTrades: 'Losing trades',
    winRate: 'Win rate',
    totalPnl: 'Total PnL',
    averagePnl: 'Average PnL',
    bestWeekdays: 'Best weekdays',
    worstWeekdays: 'Worst weekdays',
    bestHours: 'Best hours',
    worstHours: 'Worst hours',
    /** Monday to Sunday; index = the API weekday (1 = Sunday) shifted by 2 modulo 7. */
    weekdays: ['Понедельник', 'Вторник', 'Среда', 'Четверг', 'Пятница', 'Суббота', 'Воскресенье'],
    noData: 'No data',
    loading: 'Loading...',
    noStatistics: 'No statistics available for this period.',
    chainId: 'ID цепочки',
    chainStatus: 'Статус',
    chainTradesCount: 'Количество сделок',
    chainTotalPnl: 'Общий PnL',
    chainTrades: 'Сделки',
    chainOpen: 'Открыта',
    chainClosed: 'Закрыта',
    noChainData: 'No chain data',

    // Not worded by the spec.
    periodLabel: 'Period',
    dateFrom: 'From',
    dateTo: 'To',
    chainsTitle: 'Martingale chains',
    equityCurve: 'Equity curve',
    equityLast: 'Cumulative PnL',
    equityCurveImage: (closes: number) =>
      `Cumulative PnL of the period over ${String(closes)} ${closes === 1 ? 'point' : 'points'}`,
    heatmap: 'PnL by weekday and hour',
    heatmapDescription: 'Close times in your time zone. Green: profit, red: loss; stronger with the amount.',
    heatmapCell: (weekday: string, hour: string, pnl: string, trades: number) =>
      `${weekday} ${hour}: PnL ${pnl}, ${String(trades)} ${trades === 1 ? 'trade' : 'trades'}`,
    heatmapEmptyCell: (weekday: string, hour: string) => `${weekday} ${hour}: no trades`,
    success: 'success',
    fail: 'fail',
    loadFailed: 'Failed to load statistics',
    chainsLoadFailed: 'Failed to load chains',
    retry: 'Retry',
  },
  /** UI strings of the live statistics page, verbatim from the spec (section 2). */
  liveStatistics: {
    title: 'Live Trading Statistics',
    periodOptions: {
      '24h': '24h',
      '7d': '7d',
      '30d': '30d',
      all: 'all time',
    } satisfies Record<LivePeriod, string>,
    totalTrades: 'Total Trades',
    winRate: 'Win Rate %',
    totalProfit: 'Total Profit $',
    averageProfit: 'Average Profit $',
    winningTrades: 'Winning Trades',
    losingTrades: 'Losing Trades',
    maxDrawdown: 'Max Drawdown %',

    // Not worded by the spec.
    periodLabel: 'Period',
    loading: 'Loading...',
    loadFailed: 'Failed to load statistics',
  },
  /**
   * UI strings of the API keys page, verbatim from the spec (sections 2, 5 and 8). The exchange,
   * Deactivate and the delete confirmation are not in the spec; their strings are marked below.
   */
  apiKeys: {
    title: 'API Keys',
    description:
      'Exchange keys the bot trades with. Key and secret are encrypted on the server and never shown again.',

    addTitle: 'Add New API Key',
    addDescription: 'Demo keys trade on the exchange demo environment, real keys with real funds.',
    keyLabel: 'API Key',
    secretLabel: 'API Secret',
    modeLabel: 'Mode',
    demo: 'Demo',
    real: 'Real',
    add: 'Add API Key',
    adding: 'Adding...',

    listTitle: 'Existing API Keys',
    listDescription: 'The active key is the one the bot uses.',
    active: 'Active',
    inactive: 'Inactive',
    added: 'Added',
    setActive: 'Set Active',
    delete: 'Delete',
    empty: 'No API keys found',
    loading: 'Loading...',
    retry: 'Retry',

    /** Toasts (spec section 8). */
    fillAllFields: 'Please fill in all fields',
    loadFailed: 'Failed to load API keys',
    addedToast: 'API key added successfully',
    addFailed: 'Failed to add API key',
    deletedToast: 'API key deleted successfully',
    deleteFailed: 'Failed to delete API key',
    activatedToast: 'API key set as active',
    activateFailed: 'Failed to set active API key',

    // Not worded by the spec: the exchange of a key, Deactivate and the delete confirmation.
    exchangeLabel: 'Exchange',
    bybit: 'Bybit',
    paper: 'Paper',
    deactivate: 'Deactivate',
    deactivatedToast: 'API key deactivated: the bot now trades on your paper account',
    deactivateFailed: 'Failed to deactivate API key',
    deleteTitle: 'Delete this API key?',
    deleteDescription: (label: string, added: string) =>
      `The ${label} key added ${added} is removed from Signal Desk. To use it again, add it again with its secret.`,
    deleteConfirm: 'Delete key',
    cancel: 'Cancel',

    // Not worded by the spec (issue 31 point 4): each key's permissions and IP restriction as
    // the exchange reported them, and the warning of a key bound to no IP address (the server's
    // sentence is shown as it comes).
    permissionsLabel: 'Permissions',
    permissionsNone: 'None',
    permissionsNotChecked: 'Not checked yet: read from Bybit at Set Active',
    permissionsNotApplicable: 'Not applicable (paper key)',
    checkedAt: (date: string) => `Checked ${date}`,
    noIpRestriction: 'No IP restriction',
    ipRestricted: (ips: string) => `IP: ${ips}`,
    noIpWarningTitle: 'This key has no IP allow-list',
  },
  /**
   * UI strings of the trading settings page. Verbatim from the spec: the heading, the save button,
   * the toasts (sections 2 and 8). The rest (labels, hints, validation messages) is worded here in
   * Russian like the heading; each field keeps its API name next to the label. The TradingView
   * webhook card is not in the spec at all; its strings are marked below.
   */
  settings: {
    title: 'Настройки торговли',
    description: 'Лимиты, риск и расписание торгового бота. Изменения применяются к следующему решению бота.',
    loading: 'Загрузка настроек...',
    loadFailed: 'Не удалось загрузить настройки',
    retry: 'Повторить',
    save: 'Сохранить настройки',
    saving: 'Сохраняю...',
    unsaved: 'Есть несохранённые изменения',
    saved: 'Все изменения сохранены',
    /** Toasts (spec section 8). */
    savedToast: 'Settings saved successfully',
    saveFailed: 'Failed to save settings',

    sections: {
      mode: { title: 'Режим торговли', description: 'Стратегия, плечо и направление сделок.' },
      limits: { title: 'Лимиты и риск', description: 'Сколько сделок и какой объём бот может держать.' },
      exits: {
        title: 'Тейк-профит и трейлинг-стоп',
        description: 'Проценты движения цены от средней цены входа.',
      },
      martingale: { title: 'Мартингейл', description: 'Цепочки сделок с увеличением маржи после убытка.' },
      schedule: {
        title: 'Торговое расписание',
        description:
          'В запрещённые часы и дни бот не открывает новых сделок; открытые продолжают сопровождаться.',
      },
      telegram: {
        title: 'Уведомления Telegram',
        description: 'Сообщения о сделках и ежедневная статистика.',
      },
      /** Not worded by the spec: the protection check and the circuit breakers (docs/alerts.md). */
      protection: {
        title: 'Защита и автостоп',
        description:
          'Проверка стопов на бирже и остановка новых входов после убытков. Открытые позиции сохраняют свои стопы.',
      },
    },

    fields: {
      bot_mode: 'Режим бота',
      max_trades: 'Макс. открытых сделок',
      max_total_usdt: 'Макс. общая маржа, USDT',
      max_trade_usdt: 'Маржа на сделку, USDT',
      initial_stop_loss_pct: 'Начальный стоп-лосс, %',
      take_profit_first_pct: 'Первый тейк-профит, %',
      take_profit_next_pct: 'Шаг тейк-профита, %',
      use_trailing_stop: 'Трейлинг-стоп',
      trail_activation_pct: 'Активация трейлинга, %',
      trail_step_pct: 'Шаг трейлинга, %',
      leverage: 'Кредитное плечо',
      reverse_mode: 'Реверсивный режим',
      telegram_id: 'Telegram ID',
      telegram_notify_deals: 'Уведомлять о сделках',
      telegram_notify_stats: 'Присылать статистику',
      user_timezone: 'Часовой пояс',
      martingale_max_depth: 'Макс. глубина цепочки',
      martingale_max_active_chains: 'Макс. активных цепочек',
      martingale_step: 'Множитель шага',
      martingale_initial_margin: 'Начальная маржа, USDT',
      forbidden_hours_enabled: 'Запретные часы',
      forbidden_hours: 'Интервалы часов',
      forbidden_days_enabled: 'Запретные дни недели',
      forbidden_days: 'Дни недели',
      /** Not worded by the spec (English, like the webhook card). */
      symbols: 'Symbols',
      unprotected_action: 'Если стоп не восстановить',
      daily_loss_limit_pct: 'Дневной лимит убытка, %',
      max_losses_in_row: 'Убытков подряд до паузы',
      losses_pause_minutes: 'Пауза после убытков, мин',
    },

    unprotectedActions: {
      close: 'Закрыть позицию по рынку',
      alert: 'Только оповестить',
    },

    hints: {
      /** Spec section 2: divide the desired percentage by the leverage. */
      initial_stop_loss_pct: 'Разделите желаемый процент на кредитное плечо.',
      /** Spec section 2: in USDT without leverage; the leverage is applied automatically. */
      martingale_initial_margin: 'В USDT без учёта плеча: плечо применяется автоматически.',
      leverage: 'От 1 до 100.',
      take_profit_first_pct: 'Закрыть половину позиции и перенести стоп в безубыток.',
      take_profit_next_pct: 'Каждый следующий шаг закрывает половину остатка.',
      trail_activation_pct: 'Пусто: 1%.',
      martingale_step: 'Во сколько раз растёт маржа следующего шага после убытка.',
      use_trailing_stop: 'Стоп следует за лучшей ценой и только подтягивается.',
      reverse_mode: 'Открывать сделки против сигнала STRONG_BUY или STRONG_SELL.',
      forbidden_hours: 'Через запятую, в вашем часовом поясе. Учитывается только целая часть часа.',
      forbidden_hours_preview: 'Будет сохранено:',
      forbidden_hours_none: 'Ни одного распознанного интервала.',
      unprotected_action:
        'Бот проверяет стопы на бирже каждые 30 с и возвращает пропавший. Если за 3 попытки не удалось: закрыть позицию или только оповестить.',
      daily_loss_limit_pct: '0 — выключено. Новые входы до полуночи в вашем часовом поясе.',
      max_losses_in_row: '0 — выключено.',
      telegram_id: 'Числовой chat id; пусто: без уведомлений.',
      telegram_notify_deals: 'Открытие и закрытие каждой сделки.',
      telegram_notify_stats: 'Сводка за день в 00:00 по вашему часовому поясу.',
      user_timezone: 'Для запретных часов, статистики и уведомлений.',
      /** Not worded by the spec (English, like the webhook card). */
      symbols:
        "Empty: every symbol your account's market rates. TradingView alerts are not limited by this list.",
    },

    botModes: { classic: 'Классический', martingale: 'Мартингейл' },
    forbiddenHoursPlaceholder: '23.00-1.00, 6.00-8.00',
    /** Weekday checkboxes, Monday (0) to Sunday (6). */
    weekdays: ['Пн', 'Вт', 'Ср', 'Чт', 'Пт', 'Сб', 'Вс'],
    weekdayNames: ['Понедельник', 'Вторник', 'Среда', 'Четверг', 'Пятница', 'Суббота', 'Воскресенье'],

    validation: {
      required: 'Обязательное поле',
      number: 'Введите число',
      integer: 'Введите целое число',
      min: (min: number) => `Не меньше ${min}`,
      max: (max: number) => `Не больше ${max}`,
      below: (max: number) => `Меньше ${max}`,
      tooManyIntervals: (max: number) => `Не больше ${max} интервалов`,
      decimals: (places: number) => `Не больше ${places} знаков после запятой`,
      tooLong: (chars: number) => `Не длиннее ${chars} символов`,
    },

    // Not worded by the spec: the TradingView webhook card (worded in English, like its toasts).
    channels: {
      title: 'Channels',
      description:
        'Where trades, the daily summary and alerts are sent besides the Telegram chat above. Each channel has a Test button; failed deliveries are retried and shown here.',
      loading: 'Loading...',
      loadFailed: 'Failed to load the channels',
      retry: 'Retry',
      empty: 'No channels yet',
      kind: 'Kind',
      kinds: { telegram: 'Telegram', discord: 'Discord', email: 'E-mail', webhook: 'Webhook' },
      url: 'URL',
      discordUrlHint: "The incoming webhook URL from the Discord channel's Integrations settings.",
      webhookUrlHint: 'A JSON POST signed with X-SignalDesk-Signature: sha256=<HMAC-SHA256 of the body>.',
      address: 'E-mail address',
      chatId: 'Chat id',
      chatIdHint: 'Empty: the Telegram chat id of the settings above.',
      secret: 'Signing secret',
      secretHint: '16 to 256 characters; leave empty and one is made for you (shown once).',
      add: 'Add channel',
      adding: 'Adding...',
      added: 'Channel added',
      addFailed: 'Failed to add the channel',
      madeSecret: 'The signing secret (shown once, copy it now):',
      test: 'Test',
      testing: 'Testing...',
      testDelivered: 'Test message sent',
      testFailed: 'The test message did not go through',
      edit: 'Edit',
      editTitle: (kind: string) => `Edit the ${kind} channel`,
      keepUrl: 'Leave empty to keep the current URL.',
      keepSecret: 'Leave empty to keep the current secret.',
      save: 'Save',
      saving: 'Saving...',
      saved: 'Channel saved',
      saveFailed: 'Failed to save the channel',
      cancel: 'Cancel',
      delete: 'Delete',
      deleted: 'Channel deleted',
      deleteFailed: 'Failed to delete the channel',
      working: 'Working',
      failures: (count: number, at: string | null) =>
        `${count} failed deliver${count === 1 ? 'y' : 'ies'} in a row${at ? `, last at ${at}` : ''}`,
      lastError: (error: string) => `Last error: ${error}`,
    },
    webhook: {
      title: 'TradingView webhook',
      description:
        'TradingView alerts sent to your secret URL become your signals (source "webhook") and show up live.',
      loading: 'Loading...',
      loadFailed: 'Failed to load the webhook status',
      retry: 'Retry',
      configured: 'A webhook URL is set up.',
      created: (when: string) => `Created ${when}`,
      none: 'No webhook URL yet.',
      generate: 'Generate webhook URL',
      regenerate: 'Regenerate URL',
      remove: 'Remove',
      cancel: 'Cancel',
      urlLabel: 'Webhook URL',
      copy: 'Copy',
      shownOnce:
        'This URL is shown only once: paste it into the Webhook URL field of your TradingView alert now.',
      regenerateTitle: 'Regenerate the webhook URL?',
      regenerateDescription:
        'The current URL stops working at once. TradingView alerts still sending to it are refused until they use the new one.',
      removeTitle: 'Remove the webhook URL?',
      removeDescription:
        'The current URL stops working at once and TradingView alerts sent to it are refused.',
      helpTitle: 'Alert message',
      help: 'In the TradingView alert, turn on Webhook URL, paste the URL and use this message:',
      /** The alert body the server reads; `{{ticker}}` and `{{timenow}}` are TradingView's placeholders. */
      messageExample: '{"symbol": "{{ticker}}", "signal": "STRONG_BUY", "time": "{{timenow}}"}',
      helpSignals:
        'signal is one of STRONG_BUY, BUY, NEUTRAL, SELL or STRONG_SELL. The ticker may carry the exchange and the perpetual suffix (BYBIT:BTCUSDT.P).',
      helpTime:
        'time is optional: an alert sent more than 5 minutes ago (or stamped as far ahead) is refused, so a copied alert cannot be replayed later. The same alert twice within 10 seconds is acted on once.',
      helpActive:
        'Alerts are accepted only while signal fetching is active (Start Signals on the dashboard), at most 60 a minute.',
      /** Toasts. */
      createdToast: 'Webhook URL created',
      regeneratedToast: 'Webhook URL regenerated',
      createFailed: 'Failed to create webhook URL',
      removedToast: 'Webhook URL removed',
      removeFailed: 'Failed to remove webhook URL',
      copiedToast: 'Webhook URL copied',
      copyFailed: 'Could not copy the URL: select it and copy it by hand',
    },

    // Not worded by the spec: the martingale risk preview card (English, like the webhook card).
    riskPreview: {
      title: 'Martingale risk preview',
      description:
        'What one chain of the values above costs, step by step, as the server figures it. Nothing is saved.',
      loading: 'Calculating...',
      updating: 'Updating...',
      columns: {
        step: 'Step',
        margin: 'Margin (USDT)',
        notional: 'Notional',
        cumulative: 'Cumulative margin',
        liquidation: 'Liquidation distance (%)',
      },
      /** Shown next to a liquidation distance the stop loss does not fit in. */
      stopAfterLiquidation: 'the stop loss fires after liquidation',
      warnings: 'Warnings',
      noWarnings: 'No warnings for these values.',
      wallet: (balance: string) => `Checked against wallet balance ${balance} USDT`,
      /** The values above do not parse (the form's own rules), or the server refused them. */
      invalid: 'The preview is not updated until these values are fixed:',
      failed: 'Could not check these values:',
      stale: 'The table shows the last values that could be checked.',
    },
  },
  /**
   * UI strings of the Security section of /settings (issue 31: two-factor login, sessions and the
   * password change). None is worded by the spec; English, like the webhook card.
   */
  security: {
    title: 'Security',
    description: 'Two-factor login, your sessions and your password.',
    retry: 'Retry',

    twoFactor: {
      title: 'Two-factor login',
      description:
        'With two-factor login on, signing in takes a 6-digit code from an authenticator app besides the password.',
      loading: 'Loading...',
      loadFailed: 'Failed to load the two-factor status',
      on: 'Two-factor login is on',
      off: 'Two-factor login is off',
      codesLeft: (n: number) => `${n} recovery code${n === 1 ? '' : 's'} left`,
      setUp: 'Set up two-factor login',
      setUpFailed: 'Failed to start the set-up',
      scan: 'Scan this QR code with an authenticator app (or type the secret), then enter the code it shows.',
      qrLabel: 'QR code for the authenticator app',
      secretLabel: 'Secret',
      codeLabel: 'Code from the app',
      enable: 'Turn on',
      enabledToast: 'Two-factor login turned on',
      enableFailed: 'Failed to turn on two-factor login',
      cancel: 'Cancel',
      recoveryTitle: 'Recovery codes',
      recoveryHelp:
        'Each code signs you in once if you lose the authenticator. Keep them somewhere safe: they are shown only now.',
      recoveryDone: 'I have saved them',
      disableCodeLabel: 'Code from the app or a recovery code',
      disable: 'Turn off',
      disabledToast: 'Two-factor login turned off',
      disableFailed: 'Failed to turn off two-factor login',
      codeRequired: 'Enter the code',
    },

    sessions: {
      title: 'Sessions',
      description: 'Where you are signed in. Revoking a session signs it out at once.',
      loading: 'Loading...',
      loadFailed: 'Failed to load sessions',
      empty: 'No sessions',
      current: 'This session',
      browser: 'Browser',
      token: 'API token',
      unknownAgent: 'Unknown client',
      unknownAddress: 'unknown address',
      created: (at: string) => `Signed in ${at}`,
      lastSeen: (at: string) => `last seen ${at}`,
      revoke: 'Revoke',
      revokedToast: 'Session revoked',
      revokeFailed: 'Failed to revoke the session',
      revokeOthers: 'Revoke others',
      revokedOthersToast: (n: number) => `${n} other session${n === 1 ? '' : 's'} revoked`,
      revokeOthersFailed: 'Failed to revoke the other sessions',
    },

    password: {
      title: 'Password',
      description: 'Changing the password signs out every other session.',
      currentLabel: 'Current password',
      newLabel: 'New password',
      confirmLabel: 'Repeat the new password',
      submit: 'Change password',
      submitting: 'Changing...',
      changedToast: 'Password changed',
      changeFailed: 'Failed to change the password',
      required: 'This field is required',
      tooShort: 'At least 8 characters',
      mismatch: 'The passwords differ',
    },
  },
  /**
   * UI strings of the Audit log page (issue 31 point 2). Not worded by the spec; English, like the
   * Security section. The action names are the server's stable ones (docs/security.md).
   */
  auditLog: {
    title: 'Audit log',
    description:
      'Every settings change, key, bot and position action, login and session change on your account, newest first. Rows are kept 365 days and never changed.',
    loading: 'Loading...',
    loadFailed: 'Failed to load the audit log',
    retry: 'Retry',
    empty: 'Nothing recorded yet.',
    loadMore: 'Load more',
    loadMoreFailed: 'Failed to load more rows',
    tableLabel: 'Audit log',
    scrollLabel: 'Audit log rows (scrolls sideways)',
    columns: {
      time: (zone: string) => `Time (${zone})`,
      action: 'Action',
      details: 'Details',
      address: 'Address',
      userAgent: 'User agent',
    },
    none: '—',
    actions: {
      settings_changed: 'Settings changed',
      api_key_added: 'API key added',
      api_key_activated: 'API key activated',
      api_key_deactivated: 'API key deactivated',
      api_key_deleted: 'API key deleted',
      bot_started: 'Bot started',
      bot_stopped: 'Bot stopped',
      signals_started: 'Signals started',
      signals_stopped: 'Signals stopped',
      position_closed: 'Position closed',
      positions_closed_all: 'All positions closed',
      login: 'Login',
      login_failed: 'Failed login',
      logout: 'Logout',
      two_factor_enabled: 'Two-factor login turned on',
      two_factor_disabled: 'Two-factor login turned off',
      webhook_url_created: 'Webhook URL created',
      webhook_url_rotated: 'Webhook URL rotated',
      session_revoked: 'Session revoked',
      sessions_revoked_others: 'Other sessions revoked',
      password_changed: 'Password changed',
    } as Record<string, string>,
    details: {
      key: (id: number, exchange: string, demo: boolean) =>
        `Key #${id} · ${exchange === 'paper' ? 'Paper' : 'Bybit'}${exchange === 'paper' ? '' : demo ? ' demo' : ' mainnet'}`,
      trade: (id: number, symbol: string) => `${symbol} · trade #${id}`,
      positions: (n: number) => `${n} position${n === 1 ? '' : 's'}`,
      sessions: (n: number) => `${n} session${n === 1 ? '' : 's'}`,
      session: (id: number) => `Session #${id}`,
      loginVia: { browser: 'In the browser', token: 'API token' } as Record<string, string>,
      failedReason: {
        password: 'Wrong password',
        otp: 'Wrong two-factor code',
      } as Record<string, string>,
      user: (name: string) => `user "${name}"`,
      passwordChanged: (n: number) => `${n} other session${n === 1 ? '' : 's'} ended`,
    },
    // The link in the Security section of /settings.
    securityLink: 'View the audit log',
    securityLinkHelp: 'Logins, key, bot and settings changes on your account.',
  },
  /** UI strings of the /backtest page (not worded by the spec; issue 19). */
  backtest: {
    title: 'Backtest',
    description: 'What your settings would have done over the simulated market, run by the bot’s own code.',
    openFromStats: 'Backtest',
    form: 'New backtest',
    dateFrom: 'From',
    dateTo: 'To',
    symbols: 'Symbols',
    symbolsHint: 'Comma-separated; empty for every symbol.',
    symbolsPlaceholder: 'BTCUSDT, ETHUSDT',
    source: 'Signals',
    sources: { ratings: 'Technical ratings', alerts: 'My TradingView alerts' },
    stopLoss: 'Stop loss %',
    takeProfit: 'First take profit %',
    leverage: 'Leverage',
    savedValue: 'saved settings',
    run: 'Run backtest',
    starting: 'Starting…',
    runs: 'Runs',
    noRuns: 'No backtests yet.',
    period: 'Period',
    status: 'Status',
    progress: 'Progress',
    actions: 'Actions',
    statuses: { running: 'Running', done: 'Done', failed: 'Failed', cancelled: 'Cancelled' } as Record<
      string,
      string
    >,
    open: 'Open',
    compare: 'Compare',
    cancel: 'Cancel',
    delete: 'Delete',
    result: (id: number) => `Backtest #${String(id)}`,
    comparing: 'Two runs side by side',
    maxDrawdown: 'Max drawdown',
    finalBalance: 'Final balance',
    fees: 'Fees',
    funding: 'Funding',
    openAtEnd: 'Open at the end',
    trades: 'Trades',
    tradesShown: (shown: number, total: number) =>
      shown === total ? `${String(total)} trades` : `the last ${String(shown)} of ${String(total)} trades`,
    tradeColumns: {
      symbol: 'Symbol',
      side: 'Side',
      entry: 'Entry',
      exit: 'Exit',
      pnl: 'PnL',
      reason: 'Reason',
      closed: 'Closed',
    },
    tradeSides: { long: 'Long', short: 'Short' },
    loadFailed: 'Failed to load backtests',
    runFailed: 'The backtest failed',
    progressLabel: (id: number) => `Progress of backtest #${String(id)}`,
    // What a run ran with (issue 33 point 8).
    ranWith: 'Ran with',
    ranWithData: 'Data',
    ranWithPeriod: 'Period',
    ranWithSymbols: 'Symbols',
    ranWithSignals: 'Signals',
    ranWithMode: 'Mode',
    ranWithLeverage: 'Leverage',
    ranWithOrder: 'Order size',
    ranWithMaxTotal: 'Max total',
    ranWithStop: 'Stop loss',
    ranWithTakeProfits: 'Take profits',
    ranWithTrailing: 'Trailing stop',
    ranWithMartingale: 'Martingale',
    ranWithWallet: 'Wallet',
    ranWithSwept: 'Swept',
    ranWithOverride: 'changed for this run',
    dataSimulated: (seed: number | null | undefined) =>
      seed == null ? 'Simulated market' : `Simulated market, seed ${String(seed)}`,
    dataBybit: 'Stored Bybit candles',
    periodIn: (from: string, to: string, zone: string) => `${from} – ${to} (${zone})`,
    allSymbols: 'every symbol',
    modes: { classic: 'Classic', martingale: 'Martingale' } as Record<string, string>,
    /** `value` already written with two decimals. */
    usdt: (value: string) => `${value} USDT`,
    pct: (value: number) => `${String(value)}%`,
    takeProfits: (first: number, next: number) => `first ${String(first)}%, then every ${String(next)}%`,
    trailingOff: 'off',
    trailingOn: (activation: number, step: number) => `from +${String(activation)}%, step ${String(step)}%`,
    martingaleOf: (depth: number, step: number, margin: string) =>
      `up to ${String(depth)} steps, ×${String(step)}, first margin ${margin} USDT`,
    // Why a run traded nothing.
    noTrades: 'No trades',
    noTradesSkips: 'Skipped entries by reason',
    // A run's label.
    label: 'Label',
    labelOf: (id: number) => `Label of backtest #${String(id)}`,
    noLabel: 'No label',
    rename: 'Rename',
    renameOf: (id: number) => `Rename backtest #${String(id)}`,
    labelHint: 'Enter saves, Escape cancels. Empty clears the label.',
    labelSave: 'Save',
    labelCancel: 'Cancel',
    labelFailed: 'Failed to save the label',
    labelTooLong: (max: number) => `At most ${String(max)} characters.`,

    // A trade's price chart.
    chart: 'Chart',
    chartOf: (tradeId: number) => `Chart of trade #${String(tradeId)}`,
    chartRegion: (tradeId: number) => `Price chart of trade #${String(tradeId)}`,
    chartLoading: 'Loading the chart…',
    chartFailed: 'Failed to load the chart',
    chartEmpty: 'No candles for this trade.',
    chartImage: (symbol: string, minutes: number, markers: number) =>
      `${symbol} ${String(minutes)}-minute candles with ${String(markers)} ${markers === 1 ? 'marker' : 'markers'}`,
    chartMarkers: 'Markers',
    lineEntry: 'Entry',
    lineExit: 'Exit',
    lineTakeProfit: (n: number) => `TP ${String(n)}`,
    lineStop: 'Stop',
    // Sweeps.
    sweep: 'Sweep',
    sweepOptional: 'Sweep (optional)',
    sweepHint:
      'Runs every combination of one or two settings as one job on all cores. Values: comma-separated numbers, or a range from..to or from..to:step (e.g. 1..10, 2..20:2).',
    sweepField: (axis: number) => `Sweep setting ${String(axis)}`,
    sweepValues: (axis: number) => `Values ${String(axis)}`,
    sweepNone: 'None',
    sweepCells: (cells: number) => `${String(cells)} ${cells === 1 ? 'run' : 'runs'}`,
    sweepSwept: 'swept',
    runSweep: 'Run sweep',
    sweepNoValues: 'Enter at least one value.',
    sweepNotANumber: (token: string) => `"${token}" is not a number or a range from..to[:step].`,
    sweepBadStep: (token: string) => `"${token}": the step must be above 0.`,
    sweepBadRange: (token: string) => `"${token}": from must not be above to.`,
    sweepNotWhole: (value: number) => `${String(value)} is not a whole number.`,
    sweepTwice: (value: number) => `${String(value)} is listed twice.`,
    sweepTooManyValues: (max: number) => `At most ${String(max)} values.`,
    sweepTooManyCells: (cells: number, max: number) =>
      `The sweep has ${String(cells)} combinations; at most ${String(max)}.`,
    sweepSameField: 'Pick two different settings.',
    sweepOver: (labels: string[]) => `Sweep over ${labels.join(' × ')}`,
    sweepTable: 'Sweep results',
    sweepResultColumn: 'Result',
    sweepPnlHeatmap: 'Total PnL heatmap',
    sweepDrawdownHeatmap: 'Max drawdown heatmap',
    sweepHeatmapHint:
      'Green: profit, red: loss; the deeper the drawdown, the stronger the red. Click a cell to open its run.',
    sweepCellName: (parts: string[]) => parts.join(', '),
    sweepCellLabel: (name: string, pnl: string, drawdown: string) =>
      `${name}: total PnL ${pnl}, max drawdown ${drawdown}%`,
    sweepCellFailed: (name: string, error: string) => `${name}: failed (${error})`,
    sweepCellEmpty: (name: string) => `${name}: no result`,
    sweepCellOpen: 'Click a cell to run it alone and open its run.',
    sweepOpening: 'Starting the run…',
    sweepFailed: 'Failed',
    // Walk-forward (issue 32).
    walkForward: 'Walk-forward',
    walkForwardOptional: 'Walk-forward (optional, with a sweep)',
    walkForwardOn: 'Walk-forward the sweep',
    walkForwardHint:
      'On each training window, pick the sweep’s best combination and trade it on the test window right after. Test windows follow one another, the last ending on the To date; each test starts from the balance the one before left.',
    trainDays: 'Training days',
    testDays: 'Test days',
    metric: 'Best by',
    metrics: { total_pnl: 'Total PnL', pnl_over_drawdown: 'PnL / max drawdown (USDT)' } as Record<
      string,
      string
    >,
    walkForwardBadDays: 'Enter a whole number of days, at least 1.',
    walkForwardNeedsSweep: 'A walk-forward picks among a sweep’s combinations: choose a setting to sweep.',
    runWalkForward: 'Run walk-forward',
    walkForwardOver: (labels: string[], train: number, test: number) =>
      `Walk-forward over ${labels.join(' × ')}: ${String(train)} training days, ${String(test)} test days`,
    walkForwardBestBy: (metric: string) => `Best combination of each training window by ${metric}.`,
    walkForwardTable: 'Walk-forward windows',
    walkForwardWindow: 'Window',
    walkForwardTraining: 'Training',
    walkForwardTest: 'Test',
    walkForwardChosen: 'Chosen',
    walkForwardInSample: 'In-sample PnL',
    walkForwardOutOfSample: 'Out-of-sample PnL',
    walkForwardTotal: 'Total',
    walkForwardNoCell: 'No combination ran',
    perDay: (value: string) => `${value}/day`,
    walkForwardFarBelow: 'Far below in-sample',
    walkForwardWarning:
      'Out-of-sample results are far below in-sample (less than half the PnL per day): the chosen settings may only fit the past.',
    walkForwardWindowsWarning: (windows: number[]) =>
      `Far below in-sample in window${windows.length === 1 ? '' : 's'} ${windows.join(', ')}.`,
    walkForwardEquity: 'Out-of-sample equity curve',
    walkForwardUnused: (from: string, to: string) =>
      `Not used: ${from} – ${to} (fewer days than a test window).`,
    pnlShort: 'PnL',
    drawdownShort: 'DD',
    parity: 'Backtest vs reality',
    parityHint:
      "The signals your bot acted on in the period, replayed through a backtest of your current settings on your account's market, next to the live trades. Trades are matched by the signal that opened them.",
    parityFrom: 'From',
    parityTo: 'To',
    parityRun: 'Compare',
    parityRunning: 'Replaying…',
    parityTable: 'Live and backtest trades',
    parityLive: 'Live',
    parityBacktest: 'Backtest',
    parityDifference: 'Difference',
    parityAgrees: 'Agrees',
    parityDiffers: 'Differs',
    parityNone: 'No trades on either side in this period.',
    parityNoDifferences: 'No differences: live and backtest agree trade for trade.',
    parityDifferences: (n: number) => `${String(n)} trade${n === 1 ? '' : 's'} differ.`,
    paritySignals: (n: number, data: string) =>
      `${String(n)} signals replayed on the ${data === 'bybit' ? 'stored Bybit' : 'simulated'} market.`,
    paritySignal: (id: number | null | undefined, step: number) =>
      id == null
        ? 'no signal'
        : step > 1
          ? `signal #${String(id)}, step ${String(step)}`
          : `signal #${String(id)}`,
    parityTotals: 'Totals',
    parityFields: {
      entryTime: 'Entry time',
      entryPrice: 'Entry price',
      exitTime: 'Exit time',
      exitPrice: 'Exit price',
      fees: 'Fees',
      funding: 'Funding',
      pnl: 'PnL',
      trades: 'Trades',
    },
  },
  /** Where a user's bot trades (not worded by the spec; src/lib/venue.ts). */
  venue: {
    paper: 'Paper',
    bybitDemo: 'Bybit Demo',
    bybitReal: 'Bybit Real',
  },
  /** The API client's own failures, shown when the server gives no message (src/lib/api-client.ts). */
  api: {
    requestFailed: (status: string) => `Request failed with status ${status}`,
    networkError: 'Network error: the server could not be reached',
  },
} as const
