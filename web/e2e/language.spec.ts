import type { Page } from '@playwright/test'
import { expect, test } from './fixtures'
import { setLanguage } from './language'
import type { History } from './seeded-history'

// Issue 33, point 7: the RU / EN switch beside Toggle Theme; every page in Russian.
const PAGES = [
  { nav: 'Основная навигация', link: 'Статус бота', path: '/dashboard', heading: 'Панель управления' },
  { nav: 'Основная навигация', link: 'Статистика', path: '/stats', heading: 'Статистика' },
  { nav: 'Основная навигация', link: 'API-ключи', path: '/api-keys', heading: 'API-ключи' },
  { nav: 'Основная навигация', link: 'Настройки', path: '/settings', heading: 'Настройки торговли' },
  { nav: 'Другие страницы', link: 'Сигналы', path: '/trading-signals', heading: 'Торговые сигналы' },
  {
    nav: 'Другие страницы',
    link: 'Текущие показатели',
    path: '/statistics',
    heading: 'Статистика торговли в реальном времени',
  },
  { nav: 'Другие страницы', link: 'Сделки', path: '/trades', heading: 'Сделки' },
  { nav: 'Другие страницы', link: 'Логи', path: '/logs', heading: 'Торговые логи' },
  { nav: 'Другие страницы', link: 'Бэктест', path: '/backtest', heading: 'Бэктест' },
  { nav: 'Другие страницы', link: 'Журнал аудита', path: '/audit-log', heading: 'Журнал аудита' },
]

const h1 = (page: Page, name: string) => page.getByRole('heading', { level: 1, name, exact: true })

/** One closed trade that earned 10,000 USDT an hour ago: a figure with a thousands group and decimals. */
function bigWinHistory(now = Date.now()): History {
  const iso = (minutesAgo: number) => new Date(now - minutesAgo * 60_000).toISOString()
  return {
    chains: [],
    trades: [
      {
        symbol: 'BTCUSDT',
        side: 'long',
        status: 'CLOSED',
        leverage: 10,
        margin: '5000',
        qty: '1',
        entry_price: '50000',
        exit_price: '60000',
        pnl: '10000',
        fees: '0',
        opened_at: iso(120),
        closed_at: iso(60),
        chain: null,
        chain_step: null,
      },
    ],
    balance_snapshots: [],
  }
}

/** `value` with 2 decimals as Intl writes it in ru-RU (its group separator is a no-break space). */
const russianAmount = (value: number) =>
  new Intl.NumberFormat('ru-RU', { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(value)

test.describe('language', () => {
  test('switches to Russian in the sidebar at 1440 px, keeps it over a reload, and back', async ({
    page,
    login,
    account,
  }) => {
    await page.setViewportSize({ width: 1440, height: 900 })
    await login(page, account)
    await expect(h1(page, 'Dashboard')).toBeVisible()
    await expect(page.locator('html')).toHaveAttribute('lang', 'en')

    await page.getByRole('button', { name: 'Toggle Language' }).click()
    await expect(h1(page, 'Панель управления')).toBeVisible()
    await expect(page.locator('html')).toHaveAttribute('lang', 'ru')

    for (const target of PAGES) {
      await page
        .getByRole('navigation', { name: target.nav })
        .getByRole('link', { name: target.link, exact: true })
        .click()
      await expect(page).toHaveURL(new RegExp(`${target.path}$`))
      await expect(h1(page, target.heading)).toBeVisible()
    }

    await page.reload()
    await expect(h1(page, 'Журнал аудита')).toBeVisible()
    await expect(page.locator('html')).toHaveAttribute('lang', 'ru')

    // Collapsed, the switch keeps its name.
    await page.getByRole('button', { name: 'Свернуть панель' }).click()
    await page.getByRole('button', { name: 'Сменить язык' }).click()
    await expect(h1(page, 'Audit log')).toBeVisible()
    await expect(page.locator('html')).toHaveAttribute('lang', 'en')
  })

  test('switches to Russian in the phone drawer at 360 px and visits every page from it', async ({
    page,
    login,
    account,
  }) => {
    await page.setViewportSize({ width: 360, height: 800 })
    await login(page, account)
    await page.getByRole('button', { name: 'Open menu' }).click()
    await page.getByRole('dialog').getByRole('button', { name: 'Toggle Language' }).click()
    await expect(h1(page, 'Панель управления')).toBeVisible()

    for (const target of PAGES) {
      const drawer = page.getByRole('dialog')
      if (!(await drawer.isVisible())) await page.getByRole('button', { name: 'Открыть меню' }).click()
      await drawer
        .getByRole('navigation', { name: target.nav })
        .getByRole('link', { name: target.link, exact: true })
        .click()
      await expect(drawer).toBeHidden()
      await expect(h1(page, target.heading)).toBeVisible()
    }

    await page.reload()
    await expect(h1(page, 'Журнал аудита')).toBeVisible()
    await page.getByRole('button', { name: 'Открыть меню' }).click()
    await page.getByRole('dialog').getByRole('button', { name: 'Сменить язык' }).click()
    await expect(h1(page, 'Audit log')).toBeVisible()
  })

  test('a table in Russian: Russian column headers and numbers written the Russian way', async ({
    page,
    login,
    account,
    server,
  }) => {
    await server.importHistory(account.username, bigWinHistory())
    await setLanguage(page, 'ru')
    await page.setViewportSize({ width: 1440, height: 900 })
    await login(page, account)
    await page
      .getByRole('navigation', { name: 'Другие страницы' })
      .getByRole('link', { name: 'Сделки' })
      .click()
    await expect(h1(page, 'Сделки')).toBeVisible()

    const table = page.getByRole('table', { name: 'Сделки' })
    for (const header of [
      'Символ',
      'Сторона',
      'Статус',
      'Открыта (Europe/Moscow)',
      'Вход',
      'Выход',
      'PnL (USDT)',
    ]) {
      await expect(table.getByRole('columnheader', { name: header, exact: true })).toBeVisible()
    }
    const row = table.getByRole('row').nth(1)
    await expect(row).toContainText('Лонг')
    await expect(row).toContainText(`${russianAmount(10000)} USDT`)
    expect(russianAmount(10000)).toBe('10\u00a0000,00')
    await expect(row).toContainText(russianAmount(50000))

    // The same page in English keeps the spec's format.
    await page.getByRole('button', { name: 'Сменить язык' }).click()
    await expect(h1(page, 'Trades')).toBeVisible()
    await expect(page.getByRole('table', { name: 'Trades' }).getByRole('row').nth(1)).toContainText(
      '10,000.00 USDT',
    )
  })

  test('setLanguage runs a page in Russian from its first load', async ({ page, login, account }) => {
    await setLanguage(page, 'ru')
    await login(page, account)
    await expect(h1(page, 'Панель управления')).toBeVisible()
    await expect(page.locator('html')).toHaveAttribute('lang', 'ru')
  })
})
