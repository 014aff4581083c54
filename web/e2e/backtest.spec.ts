import type { Page } from '@playwright/test'
import { expect, test } from './fixtures'

/**
 * /backtest against the real server: a run started from the form shows its progress bar, then its
 * figures (the /stats tiles and lists, the lightweight-charts curve, the trades and a trade's price
 * chart); a second run with another stop loss is compared side by side; a reversed period is
 * refused with the server's field message. A 2 x 2 sweep runs from the form, shows its table and
 * heatmaps, and a cell opens the single run that reproduces it. A walk-forward of a sweep shows
 * its windows, the out-of-sample curve and the warning where out-of-sample falls far below.
 */

function daysAgo(days: number): string {
  const date = new Date()
  date.setDate(date.getDate() - days)
  return date.toISOString().slice(0, 10)
}

/** Five days of two symbols: a run of well under a second. */
const SHORT = { fromDaysAgo: 6, symbols: 'BTCUSDT, ETHUSDT' }
/**
 * A year of four symbols: a few seconds even in the debug build (3.6 s on the 2-core CI machine),
 * so the page polling every half second sees the run in progress. A short run can be done before
 * the page's first look.
 */
const LONG = { fromDaysAgo: 367, symbols: 'BTCUSDT, ETHUSDT, SOLUSDT, XRPUSDT' }

async function runBacktest(page: Page, stopLoss: string, period = SHORT): Promise<number> {
  const form = page.getByRole('form', { name: 'New backtest' })
  await form.getByLabel('From', { exact: true }).fill(daysAgo(period.fromDaysAgo))
  await form.getByLabel('To', { exact: true }).fill(daysAgo(2))
  await form.getByLabel('Symbols').fill(period.symbols)
  await form.getByLabel('Stop loss %').fill(stopLoss)
  const started = page.waitForResponse(
    (response) => response.url().endsWith('/api/backtests/') && response.request().method() === 'POST',
  )
  await form.getByRole('button', { name: 'Run backtest' }).click()
  const response = await started
  expect(response.status()).toBe(202)
  const body = (await response.json()) as { id: number }
  return body.id
}

function result(page: Page, id: number) {
  return page.getByRole('region', { name: `Backtest #${String(id)}` })
}

test('a backtest from the page: progress, then the result; two runs compared', async ({
  page,
  login,
  account,
}) => {
  test.setTimeout(180_000)
  await login(page, account)
  await page.goto('/stats')
  // The /stats page's own link (the sidebar has one too).
  await page.getByRole('main').getByRole('link', { name: 'Backtest' }).click()
  await expect(page).toHaveURL(/\/backtest$/)
  await expect(page.getByRole('heading', { level: 1, name: 'Backtest' })).toBeVisible()
  await expect(page.getByText('No backtests yet.')).toBeVisible()

  const first = await runBacktest(page, '3', LONG)
  const firstResult = result(page, first)
  await expect(firstResult.getByRole('progressbar')).toBeVisible()
  await expect(page.getByRole('table', { name: 'Runs' }).getByRole('row')).toHaveCount(2)
  await expect(firstResult.getByRole('group', { name: 'Max drawdown', exact: true })).toBeVisible({
    timeout: 120_000,
  })
  await expect(firstResult.getByRole('progressbar')).toHaveCount(0)
  const total = firstResult.getByRole('group', { name: 'Total trades', exact: true })
  await expect(total).toBeVisible()
  // A year makes thousands of trades: the count is grouped ("4,010").
  const shown = await total.locator('p').first().innerText()
  expect(shown).toMatch(/^\d{1,3}(,\d{3})*$/)
  expect(Number(shown.replaceAll(',', ''))).toBeGreaterThan(0)
  await expect(firstResult.getByRole('table', { name: 'Trades' }).getByRole('row').nth(1)).toBeVisible()
  await expect(firstResult.getByRole('region', { name: 'Equity curve' })).toBeVisible()
  // The curve is drawn by lightweight-charts: canvases inside the labelled container.
  const curveChart = firstResult
    .getByRole('region', { name: 'Equity curve' })
    .getByRole('figure', { name: /^Cumulative PnL of the period over \d+ points?$/ })
  await expect(curveChart).toBeVisible()
  await expect(curveChart.locator('canvas').first()).toBeVisible()

  // A trade's price chart: its candles from the server, markers listed, the entry first.
  // (a closed one: a trade still open at the end has no exit.)
  const chartName = /^Chart of trade #\d+$/
  const chartButton = firstResult
    .getByRole('table', { name: 'Trades' })
    .getByRole('row')
    .filter({ has: page.getByRole('button', { name: chartName }) })
    .filter({ hasNotText: /\bOPEN\b/ })
    .first()
    .getByRole('button', { name: chartName })
  const tradeId = Number(/#(\d+)$/.exec((await chartButton.getAttribute('aria-label')) ?? '')?.[1])
  expect(tradeId).toBeGreaterThan(0)
  const chartAnswer = page.waitForResponse((response) =>
    response.url().endsWith(`/api/backtests/${String(first)}/trades/${String(tradeId)}/chart/`),
  )
  await chartButton.click()
  expect((await chartAnswer).status()).toBe(200)
  await expect(chartButton).toHaveAttribute('aria-expanded', 'true')
  const tradeChart = firstResult.getByRole('region', { name: `Price chart of trade #${String(tradeId)}` })
  const candles = tradeChart.getByRole('figure', { name: /^[A-Z0-9]+ \d+-minute candles with \d+ markers?$/ })
  await expect(candles).toBeVisible()
  await expect(candles.locator('canvas').first()).toBeVisible()
  await expect(tradeChart.getByRole('list', { name: 'Markers' }).getByRole('listitem').first()).toContainText(
    'Entry',
  )
  await chartButton.click()
  await expect(tradeChart).toHaveCount(0)
  const runs = page.getByRole('table', { name: 'Runs' })
  await expect(runs.getByRole('row').nth(1).getByText('Done')).toBeVisible()

  const second = await runBacktest(page, '8')
  await expect(result(page, second).getByRole('group', { name: 'Max drawdown', exact: true })).toBeVisible({
    timeout: 120_000,
  })
  await page.getByRole('button', { name: `Compare #${String(first)}` }).click()
  const compared = page.getByRole('group', { name: 'Two runs side by side' })
  await expect(compared.getByRole('heading', { level: 2 })).toHaveText([
    `Backtest #${String(second)}`,
    `Backtest #${String(first)}`,
  ])
  for (const id of [first, second]) {
    await expect(result(page, id).getByRole('group', { name: 'Total trades', exact: true })).toBeVisible()
  }

  // A reversed period: the server's message under the field, and no new run.
  const form = page.getByRole('form', { name: 'New backtest' })
  await form.getByLabel('From', { exact: true }).fill(daysAgo(2))
  await form.getByLabel('To', { exact: true }).fill(daysAgo(6))
  await form.getByRole('button', { name: 'Run backtest' }).click()
  await expect(form.getByRole('alert').first()).toContainText('must end on or after date_from')
  await expect(runs.getByRole('row')).toHaveCount(3)
})

test('a 2 x 2 sweep from the page: the table and heatmaps of 4 cells; a cell opens its run', async ({
  page,
  login,
  account,
}) => {
  test.setTimeout(360_000)
  await login(page, account)
  await page.goto('/backtest')
  const form = page.getByRole('form', { name: 'New backtest' })
  await form.getByLabel('From', { exact: true }).fill(daysAgo(5))
  await form.getByLabel('To', { exact: true }).fill(daysAgo(2))
  await form.getByLabel('Symbols').fill('BTCUSDT, ETHUSDT')
  await form.getByLabel('Sweep setting 1').selectOption({ label: 'Stop loss %' })
  await form.getByLabel('Values 1').fill('2, 4')
  await form.getByLabel('Sweep setting 2').selectOption({ label: 'First take profit %' })
  await form.getByLabel('Values 2').fill('3..6:3')
  await expect(form.getByText('4 runs', { exact: true })).toBeVisible()
  const started = page.waitForResponse(
    (response) => response.url().endsWith('/api/backtests/') && response.request().method() === 'POST',
  )
  await form.getByRole('button', { name: 'Run sweep' }).click()
  const response = await started
  expect(response.status()).toBe(202)
  expect(response.request().postDataJSON()).toMatchObject({
    sweep: [
      { field: 'initial_stop_loss_pct', values: [2, 4] },
      { field: 'take_profit_first_pct', values: [3, 6] },
    ],
  })
  const sweepId = ((await response.json()) as { id: number }).id
  const runs = page.getByRole('table', { name: 'Runs' })
  await expect(runs.getByRole('row').nth(1)).toContainText('Sweep')

  const sweep = result(page, sweepId)
  const table = sweep.getByRole('table', { name: 'Sweep results' })
  await expect(table).toBeVisible({ timeout: 300_000 })
  await expect(sweep.getByRole('progressbar')).toHaveCount(0)
  await expect(table.getByRole('columnheader')).toHaveText(['Stop loss % \\ First take profit %', '3', '6'])
  await expect(table.getByRole('rowheader')).toHaveText(['2', '4'])
  const cellLabel =
    /^Stop loss % [24], First take profit % [36]: (total PnL -?\d+\.\d{2}, max drawdown \d+\.\d{2}%|failed \(.+\))$/
  const tableCells = table.getByRole('button')
  await expect(tableCells).toHaveCount(4)
  for (const name of ['Total PnL heatmap', 'Max drawdown heatmap']) {
    const heatmap = sweep.getByRole('table', { name })
    await expect(heatmap.getByRole('button')).toHaveCount(4)
    for (const cell of await heatmap.getByRole('button').all()) {
      await expect(cell).toHaveAttribute('aria-label', cellLabel)
    }
  }
  for (const cell of await tableCells.all()) await expect(cell).toHaveAttribute('aria-label', cellLabel)

  // Stop loss 4 x take profit 6 (the last cell): its own run, with the sweep's period and symbols.
  const cell = table.getByRole('button', { name: /^Stop loss % 4, First take profit % 6: total PnL/ })
  const label = (await cell.getAttribute('aria-label')) ?? ''
  const figures = /total PnL (-?\d+\.\d{2}), max drawdown (\d+\.\d{2})%$/.exec(label)
  expect(figures).not.toBeNull()
  const pnl = figures?.[1] ?? 'missing'
  const drawdown = figures?.[2] ?? 'missing'
  const opened = page.waitForResponse(
    (answer) => answer.url().endsWith('/api/backtests/') && answer.request().method() === 'POST',
  )
  await cell.click()
  const openedAnswer = await opened
  expect(openedAnswer.status()).toBe(202)
  const single = openedAnswer.request().postDataJSON() as Record<string, unknown>
  expect(single).toMatchObject({
    date_from: daysAgo(5),
    date_to: daysAgo(2),
    symbols: ['BTCUSDT', 'ETHUSDT'],
    overrides: { initial_stop_loss_pct: 4, take_profit_first_pct: 6 },
  })
  expect(single).not.toHaveProperty('sweep')
  const cellRunId = ((await openedAnswer.json()) as { id: number }).id

  const compared = page.getByRole('group', { name: 'Two runs side by side' })
  await expect(compared.getByRole('heading', { level: 2 })).toHaveText([
    `Backtest #${String(sweepId)}`,
    `Backtest #${String(cellRunId)}`,
  ])
  const cellRun = result(page, cellRunId)
  await expect(cellRun.getByRole('group', { name: 'Max drawdown', exact: true })).toBeVisible({
    timeout: 120_000,
  })
  // Runs are deterministic: the run shows the cell's figures.
  await expect(cellRun.getByRole('group', { name: 'Max drawdown', exact: true })).toHaveText(
    `Max drawdown${drawdown}%`,
  )
  await expect(cellRun.getByRole('group', { name: 'Total PnL', exact: true })).toHaveText(`Total PnL${pnl}`)
})

test('a walk-forward from the page: its windows, the out-of-sample curve and the warning rule', async ({
  page,
  login,
  account,
}) => {
  test.setTimeout(360_000)
  await login(page, account)
  await page.goto('/backtest')
  const form = page.getByRole('form', { name: 'New backtest' })
  await form.getByLabel('From', { exact: true }).fill(daysAgo(5))
  await form.getByLabel('To', { exact: true }).fill(daysAgo(2))
  await form.getByLabel('Symbols').fill('BTCUSDT, ETHUSDT')
  await form.getByLabel('Sweep setting 1').selectOption({ label: 'Stop loss %' })
  await form.getByLabel('Values 1').fill('2, 4')
  await form.getByRole('checkbox', { name: 'Walk-forward the sweep' }).check()
  await form.getByLabel('Training days').fill('2')
  await form.getByLabel('Test days').fill('1')
  const started = page.waitForResponse(
    (response) => response.url().endsWith('/api/backtests/') && response.request().method() === 'POST',
  )
  await form.getByRole('button', { name: 'Run walk-forward' }).click()
  const response = await started
  expect(response.status()).toBe(202)
  expect(response.request().postDataJSON()).toMatchObject({
    sweep: [{ field: 'initial_stop_loss_pct', values: [2, 4] }],
    walk_forward: { train_days: 2, test_days: 1, metric: 'total_pnl' },
  })
  const id = ((await response.json()) as { id: number }).id
  await expect(page.getByRole('table', { name: 'Runs' }).getByRole('row').nth(1)).toContainText(
    'Walk-forward',
  )

  // Four days, 2 + 1: two windows, the last test ending on the last day.
  const walk = result(page, id).getByRole('region', { name: 'Walk-forward' })
  const table = walk.getByRole('table', { name: 'Walk-forward windows' })
  await expect(table).toBeVisible({ timeout: 300_000 })
  await expect(walk.getByText('Walk-forward over Stop loss %: 2 training days, 1 test days')).toBeVisible()
  const rows = table.locator('tbody').getByRole('row')
  await expect(rows).toHaveCount(2)
  await expect(rows.nth(0).getByRole('cell').nth(1)).toHaveText(`${daysAgo(5)} – ${daysAgo(4)}`)
  await expect(rows.nth(0).getByRole('cell').nth(2)).toHaveText(daysAgo(3))
  await expect(rows.nth(1).getByRole('cell').nth(1)).toHaveText(`${daysAgo(4)} – ${daysAgo(3)}`)
  await expect(rows.nth(1).getByRole('cell').nth(2)).toHaveText(daysAgo(2))
  for (const row of await rows.all()) {
    await expect(row.getByRole('cell').nth(3)).toHaveText(/^Stop loss % [24]$/)
    await expect(row.getByRole('cell').nth(4)).toHaveText(/^-?\d+\.\d{2} \(-?\d+\.\d{2}\/day\)$/)
  }
  // The warning names exactly the windows marked far below, by the rule the server applies.
  const marked: number[] = []
  for (const [index, row] of (await rows.all()).entries()) {
    const perDay = async (cell: number) =>
      Number(/\((-?\d+\.\d{2})\/day\)/.exec(await row.getByRole('cell').nth(cell).innerText())?.[1])
    const [inSample, outOfSample] = [await perDay(4), await perDay(5)]
    const far = (await row.getByText('Far below in-sample').count()) > 0
    // Figures rounded to cents: only clear cases are checked against the rule.
    if (Math.abs(outOfSample - inSample / 2) > 0.02)
      expect(far).toBe(inSample > 0 && outOfSample < inSample / 2)
    if (far) marked.push(index + 1)
  }
  const warning = walk.getByRole('alert')
  if (marked.length > 0) {
    await expect(warning).toContainText(
      `Far below in-sample in window${marked.length === 1 ? '' : 's'} ${marked.join(', ')}.`,
    )
  } else {
    await expect(walk.getByText(/^Far below in-sample in window/)).toHaveCount(0)
  }
  // The chained out-of-sample curve ends on the out-of-sample total.
  const total = await table.locator('tfoot').getByRole('cell').nth(2).innerText()
  const curve = result(page, id).getByRole('region', { name: 'Out-of-sample equity curve' })
  if ((await curve.count()) > 0) {
    await expect(curve.getByTestId('equity-last')).toContainText(total.split(' ')[0] ?? 'missing')
    await expect(curve.locator('canvas').first()).toBeVisible()
  } else {
    expect(total.startsWith('0.00')).toBe(true)
  }
})

test('backtest vs reality: a period compared against the real server, a reversed one refused', async ({
  page,
  login,
  account,
}) => {
  test.setTimeout(120_000)
  await login(page, account)
  await page.goto('/backtest')
  const region = page.getByRole('region', { name: 'Backtest vs reality' })
  const form = region.getByRole('form', { name: 'Backtest vs reality' })
  await form.getByLabel('From', { exact: true }).fill(daysAgo(2))
  await form.getByLabel('To', { exact: true }).fill(daysAgo(3))
  await form.getByRole('button', { name: 'Compare' }).click()
  await expect(form.getByRole('alert').first()).toContainText('The period must end after it starts.')

  await form.getByLabel('To', { exact: true }).fill(daysAgo(1))
  const answered = page.waitForResponse((response) => response.url().includes('/api/parity/'))
  await form.getByRole('button', { name: 'Compare' }).click()
  expect((await answered).status()).toBe(200)
  await expect(region.getByText(/signals replayed on the simulated market/)).toBeVisible({ timeout: 60_000 })
  await expect(region.getByRole('table', { name: 'Totals' })).toBeVisible()
})

test('a run with no trades says why; its label is edited inline and kept after a reload', async ({
  page,
  login,
  account,
}) => {
  test.setTimeout(120_000)
  await login(page, account)
  await page.goto('/backtest')
  // Alerts as the signal source and none recorded: the run has nothing to trade on.
  const form = page.getByRole('form', { name: 'New backtest' })
  await form.getByLabel('From', { exact: true }).fill(daysAgo(3))
  await form.getByLabel('To', { exact: true }).fill(daysAgo(2))
  await form.getByLabel('Symbols').fill('BTCUSDT')
  await form.getByLabel('Signals').selectOption('alerts')
  const started = page.waitForResponse(
    (response) => response.url().endsWith('/api/backtests/') && response.request().method() === 'POST',
  )
  await form.getByRole('button', { name: 'Run backtest' }).click()
  const id = ((await (await started).json()) as { id: number }).id
  const run = result(page, id)

  const reason = run.getByRole('region', { name: 'No trades' })
  await expect(reason).toContainText('No signals in the period', { timeout: 60_000 })
  await expect(run.getByRole('table', { name: 'Trades' })).toHaveCount(0)
  const ranWith = run.getByLabel('Ran with')
  await expect(ranWith).toContainText('Simulated market, seed')
  await expect(ranWith).toContainText('My TradingView alerts')
  await expect(ranWith).toContainText(`${daysAgo(3)} – ${daysAgo(2)}`)

  // Without a label the list names what sets the run apart.
  const runs = page.getByRole('table', { name: 'Runs' })
  await expect(runs.getByTestId('run-name').first()).toHaveText('BTCUSDT · My TradingView alerts')

  // Escape cancels, Enter saves.
  await run.getByRole('button', { name: `Rename backtest #${String(id)}` }).click()
  const field = run.getByRole('textbox', { name: `Label of backtest #${String(id)}` })
  await field.fill('never saved')
  await field.press('Escape')
  await expect(field).toHaveCount(0)
  await expect(run.getByTestId('run-label')).toHaveText('No label')
  await run.getByRole('button', { name: `Rename backtest #${String(id)}` }).click()
  await field.fill('  alerts only, no signals  ')
  const saved = page.waitForResponse(
    (response) =>
      response.url().endsWith(`/api/backtests/${String(id)}/`) && response.request().method() === 'PATCH',
  )
  await field.press('Enter')
  expect((await saved).status()).toBe(200)
  await expect(run.getByTestId('run-label')).toHaveText('alerts only, no signals')

  await page.reload()
  await expect(page.getByRole('table', { name: 'Runs' }).getByTestId('run-name').first()).toHaveText(
    'alerts only, no signals',
  )
})
