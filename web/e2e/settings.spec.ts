import { expect, test } from './fixtures'

test.describe('trading settings', () => {
  test('saved settings are there after a reload', async ({ page, login, account, server }) => {
    await login(page, account)
    await page
      .getByRole('navigation', { name: 'Main navigation' })
      .getByRole('link', { name: 'Settings' })
      .click()
    await expect(page.getByRole('heading', { level: 1, name: 'Настройки торговли' })).toBeVisible()

    // The server's defaults (spec section 3).
    await expect(page.getByLabel('Макс. открытых сделок')).toHaveValue('3')
    await expect(page.getByLabel('Кредитное плечо')).toHaveValue('10')
    await expect(page.getByLabel('Часовой пояс')).toHaveValue('Europe/Moscow')

    await page.getByLabel('Режим бота').selectOption('martingale')
    await page.getByLabel('Макс. открытых сделок').fill('5')
    await page.getByLabel('Макс. общая маржа, USDT').fill('2500.5')
    await page.getByLabel('Маржа на сделку, USDT').fill('50')
    await page.getByLabel('Начальный стоп-лосс, %').fill('0.25')
    await page.getByLabel('Кредитное плечо').fill('20')
    await page.getByLabel('Активация трейлинга, %').fill('')
    await page.getByLabel('Шаг трейлинга, %').fill('0.3')
    await page.getByRole('checkbox', { name: 'Реверсивный режим' }).check()
    await page.getByLabel('Множитель шага').fill('1.5')
    await page.getByLabel('Макс. глубина цепочки').fill('6')
    await page.getByRole('checkbox', { name: 'Запретные часы' }).check()
    await page.getByLabel('Интервалы часов').fill('23.00-1.00, garbage, 6.30-8.00, 25-3')
    await expect(page.getByText('Будет сохранено: 23:00–01:00, 06:00–08:00')).toBeVisible()
    await page.getByRole('checkbox', { name: 'Запретные дни недели' }).check()
    await page.getByRole('checkbox', { name: 'Сб' }).check()
    await page.getByRole('checkbox', { name: 'Вс' }).check()
    await page.getByLabel('Часовой пояс').selectOption('Asia/Tokyo')
    await page.getByLabel('Telegram ID').fill('123456789')
    await page.getByRole('checkbox', { name: 'Присылать статистику' }).uncheck()

    await page.getByRole('button', { name: 'Сохранить настройки' }).click()
    await expect(page.getByText('Settings saved successfully')).toBeVisible()
    // The form shows the stored hours in its own format at once.
    await expect(page.getByLabel('Интервалы часов')).toHaveValue('23.00-1.00, 6.00-8.00')

    await page.reload()
    await expect(page.getByLabel('Режим бота')).toHaveValue('martingale')
    await expect(page.getByLabel('Макс. открытых сделок')).toHaveValue('5')
    await expect(page.getByLabel('Макс. общая маржа, USDT')).toHaveValue('2500.5')
    await expect(page.getByLabel('Маржа на сделку, USDT')).toHaveValue('50')
    await expect(page.getByLabel('Начальный стоп-лосс, %')).toHaveValue('0.25')
    await expect(page.getByLabel('Кредитное плечо')).toHaveValue('20')
    // Left empty: the server stores 1.0.
    await expect(page.getByLabel('Активация трейлинга, %')).toHaveValue('1')
    await expect(page.getByLabel('Шаг трейлинга, %')).toHaveValue('0.3')
    await expect(page.getByRole('checkbox', { name: 'Реверсивный режим' })).toBeChecked()
    await expect(page.getByLabel('Множитель шага')).toHaveValue('1.5')
    await expect(page.getByLabel('Макс. глубина цепочки')).toHaveValue('6')
    await expect(page.getByRole('checkbox', { name: 'Запретные часы' })).toBeChecked()
    await expect(page.getByLabel('Интервалы часов')).toHaveValue('23.00-1.00, 6.00-8.00')
    await expect(page.getByRole('checkbox', { name: 'Сб' })).toBeChecked()
    await expect(page.getByRole('checkbox', { name: 'Вс' })).toBeChecked()
    await expect(page.getByRole('checkbox', { name: 'Пн' })).not.toBeChecked()
    await expect(page.getByLabel('Часовой пояс')).toHaveValue('Asia/Tokyo')
    await expect(page.getByLabel('Telegram ID')).toHaveValue('123456789')
    await expect(page.getByRole('checkbox', { name: 'Присылать статистику' })).not.toBeChecked()
    await expect(page.getByRole('checkbox', { name: 'Уведомлять о сделках' })).toBeChecked()

    // What the server stored, as numbers.
    const token = await page.evaluate(() => localStorage.getItem('token'))
    const answer = await page.request.get(`${server.url}/api/bot-settings/`, {
      headers: { Authorization: `Token ${token ?? ''}` },
    })
    expect(answer.status()).toBe(200)
    const [record] = (await answer.json()) as Record<string, unknown>[]
    expect(record).toMatchObject({
      bot_mode: 'martingale',
      max_trades: 5,
      max_total_usdt: 2500.5,
      initial_stop_loss_pct: 0.25,
      leverage: 20,
      trail_activation_pct: 1,
      martingale_step: 1.5,
      forbidden_hours_enabled: true,
      forbidden_hours: [
        [23, 1],
        [6, 8],
      ],
      forbidden_days_enabled: true,
      forbidden_days: [5, 6],
      user_timezone: 'Asia/Tokyo',
      telegram_id: '123456789',
      telegram_notify_stats: false,
    })
  })

  test('martingale fields, hours and weekdays appear only when they apply', async ({
    page,
    login,
    account,
  }) => {
    await login(page, account)
    await page.goto('/settings')
    const martingale = [
      'Макс. глубина цепочки',
      'Макс. активных цепочек',
      'Множитель шага',
      'Начальная маржа, USDT',
    ]
    await expect(page.getByLabel('Режим бота')).toHaveValue('classic')
    for (const label of martingale) await expect(page.getByLabel(label)).toHaveCount(0)
    await page.getByLabel('Режим бота').selectOption('martingale')
    for (const label of martingale) await expect(page.getByLabel(label)).toBeVisible()
    await expect(page.getByText('В USDT без учёта плеча: плечо применяется автоматически.')).toBeVisible()
    await page.getByLabel('Режим бота').selectOption('classic')
    for (const label of martingale) await expect(page.getByLabel(label)).toHaveCount(0)

    await expect(page.getByLabel('Интервалы часов')).toHaveCount(0)
    await page.getByRole('checkbox', { name: 'Запретные часы' }).check()
    await expect(page.getByLabel('Интервалы часов')).toBeVisible()
    await page.getByRole('checkbox', { name: 'Запретные часы' }).uncheck()
    await expect(page.getByLabel('Интервалы часов')).toHaveCount(0)

    const weekdays = page.getByRole('group', { name: 'Дни недели', exact: true })
    await expect(weekdays).toHaveCount(0)
    await page.getByRole('checkbox', { name: 'Запретные дни недели' }).check()
    await expect(weekdays.getByRole('checkbox')).toHaveCount(7)
    await expect(weekdays).toContainText('ПнВтСрЧтПтСбВс')
    await page.getByRole('checkbox', { name: 'Запретные дни недели' }).uncheck()
    await expect(weekdays).toHaveCount(0)

    await expect(page.getByText('Разделите желаемый процент на кредитное плечо.')).toBeVisible()
  })

  test('values the server would refuse are caught before any request', async ({ page, login, account }) => {
    await login(page, account)
    await page.goto('/settings')
    await expect(page.getByLabel('Макс. открытых сделок')).toHaveValue('3')
    const writes: string[] = []
    page.on('request', (request) => {
      if (request.url().includes('/api/bot-settings/') && request.method() !== 'GET')
        writes.push(request.url())
    })
    await page.getByLabel('Макс. открытых сделок').fill('0')
    await page.getByLabel('Кредитное плечо').fill('101')
    await page.getByLabel('Начальный стоп-лосс, %').fill('1.005')
    await page.getByRole('button', { name: 'Сохранить настройки' }).click()
    await expect(page.getByText('Не меньше 1', { exact: true })).toBeVisible()
    await expect(page.getByText('Не больше 100', { exact: true })).toBeVisible()
    await expect(page.getByText('Не больше 2 знаков после запятой')).toBeVisible()
    await page.getByLabel('Кредитное плечо').fill('100')
    await expect(page.getByText('Не больше 100', { exact: true })).toHaveCount(0)
    expect(writes).toEqual([])
  })

  test('the protection and circuit breaker settings are there after a reload', async ({
    page,
    login,
    account,
    server,
  }) => {
    await login(page, account)
    await page.goto('/settings')
    const section = page.getByTestId('protection-settings')
    await expect(section.getByRole('heading', { name: 'Защита и автостоп' })).toBeVisible()
    const action = section.getByLabel('Если стоп не восстановить')
    const dailyLoss = section.getByLabel('Дневной лимит убытка, %')
    const lossesInRow = section.getByLabel('Убытков подряд до паузы')
    const pause = section.getByLabel('Пауза после убытков, мин')
    // The server's defaults (docs/alerts.md): close, breakers off, a 60-minute pause.
    await expect(action).toHaveValue('close')
    await expect(dailyLoss).toHaveValue('0')
    await expect(lossesInRow).toHaveValue('0')
    await expect(pause).toHaveValue('60')

    await action.selectOption({ label: 'Только оповестить' })
    await dailyLoss.fill('2.5')
    await lossesInRow.fill('4')
    await pause.fill('45')
    await page.getByRole('button', { name: 'Сохранить настройки' }).click()
    await expect(page.getByText('Settings saved successfully')).toBeVisible()

    await page.reload()
    await expect(action).toHaveValue('alert')
    await expect(dailyLoss).toHaveValue('2.5')
    await expect(lossesInRow).toHaveValue('4')
    await expect(pause).toHaveValue('45')

    const token = await page.evaluate(() => localStorage.getItem('token'))
    const answer = await page.request.get(`${server.url}/api/bot-settings/`, {
      headers: { Authorization: `Token ${token ?? ''}` },
    })
    const [record] = (await answer.json()) as Record<string, unknown>[]
    expect(record).toMatchObject({
      unprotected_action: 'alert',
      daily_loss_limit_pct: 2.5,
      max_losses_in_row: 4,
      losses_pause_minutes: 45,
    })

    // Back to the defaults: "off" saves as 0 and is shown as 0.
    await action.selectOption('close')
    await dailyLoss.fill('0')
    await lossesInRow.fill('0')
    await page.getByRole('button', { name: 'Сохранить настройки' }).click()
    await expect(page.getByText('Settings saved successfully')).toBeVisible()
    await page.reload()
    await expect(action).toHaveValue('close')
    await expect(dailyLoss).toHaveValue('0')
    await expect(lossesInRow).toHaveValue('0')
    await expect(pause).toHaveValue('45')
  })

  test('breaker values the server would refuse are caught before any request', async ({
    page,
    login,
    account,
  }) => {
    await login(page, account)
    await page.goto('/settings')
    const section = page.getByTestId('protection-settings')
    await expect(section.getByLabel('Пауза после убытков, мин')).toHaveValue('60')
    const writes: string[] = []
    page.on('request', (request) => {
      if (request.url().includes('/api/bot-settings/') && request.method() !== 'GET')
        writes.push(request.url())
    })
    await section.getByLabel('Дневной лимит убытка, %').fill('101')
    await section.getByLabel('Пауза после убытков, мин').fill('0')
    await page.getByRole('button', { name: 'Сохранить настройки' }).click()
    await expect(section.getByText('Не больше 100', { exact: true })).toBeVisible()
    await expect(section.getByText('Не меньше 1', { exact: true })).toBeVisible()
    expect(writes).toEqual([])
  })
})
