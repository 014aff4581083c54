/**
 * UI strings of the trading settings page. Verbatim from the spec: the heading, the save button,
 * the toasts (sections 2 and 8). The rest (labels, hints, validation messages) is worded here in
 * Russian like the heading; each field keeps its API name next to the label. The TradingView
 * webhook card is not in the spec at all; its strings are marked below.
 */
export const settingsStrings = {
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
    telegram: { title: 'Уведомления Telegram', description: 'Сообщения о сделках и ежедневная статистика.' },
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
    removeDescription: 'The current URL stops working at once and TradingView alerts sent to it are refused.',
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
} as const
