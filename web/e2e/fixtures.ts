import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test as base, expect, type Page } from '@playwright/test'
import { distDir, serverBin } from './paths'

export type Account = {
  username: string
  password: string
}

export type SignalDeskServer = Account & {
  url: string
  /** Creates another user with `signaldesk user create` on the running server's database. */
  createUser: (account: Account) => Promise<void>
  /**
   * Gives a user closed trades, martingale chains and balance snapshots with
   * `signaldesk history import` (the JSON `history` is written to a file first).
   */
  importHistory: (username: string, history: unknown) => Promise<void>
  /**
   * Stops the server (SIGTERM, as a restart does), runs `whileDown`, then starts it again on the
   * same port, database and data folder and waits for /healthz.
   */
  restart: (whileDown?: () => Promise<void>) => Promise<void>
}

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = createServer()
    probe.unref()
    probe.on('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address()
      const port = typeof address === 'object' && address ? address.port : 0
      probe.close(() => {
        resolvePort(port)
      })
    })
  })
}

function run(args: string[], logPath: string): Promise<void> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(serverBin, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    const log = createWriteStream(logPath, { flags: 'a' })
    child.stdout.pipe(log)
    child.stderr.pipe(log)
    child.on('error', reject)
    child.on('exit', (code) => {
      if (code === 0) resolveRun()
      else
        reject(
          new Error(
            `signaldesk ${args.slice(0, 2).join(' ')} exited with ${code}:\n${readFileSync(logPath, 'utf8')}`,
          ),
        )
    })
  })
}

async function waitForHealthy(url: string, child: ChildProcess, logPath: string, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new Error(`signaldesk serve exited with ${child.exitCode}:\n${readFileSync(logPath, 'utf8')}`)
    }
    try {
      const response = await fetch(`${url}/healthz`)
      if (response.ok) return
    } catch {
      // Not listening yet.
    }
    await new Promise((wake) => setTimeout(wake, 200))
  }
  throw new Error(
    `signaldesk serve did not answer /healthz within ${timeoutMs} ms:\n${readFileSync(logPath, 'utf8')}`,
  )
}

async function stop(child: ChildProcess) {
  if (child.exitCode !== null || child.pid === undefined) return
  const exited = new Promise<void>((done) =>
    child.once('exit', () => {
      done()
    }),
  )
  process.kill(child.pid, 'SIGTERM')
  const timer = setTimeout(() => {
    if (child.exitCode === null && child.pid !== undefined) process.kill(child.pid, 'SIGKILL')
  }, 5_000)
  await exited
  clearTimeout(timer)
}

/** Logs `account` in through the login form (for pages the `login` fixture does not reach, as in beforeAll). */
export async function logIn(page: Page, account: Account) {
  await page.goto('/login')
  await page.getByLabel('Имя пользователя').fill(account.username)
  await page.getByLabel('Пароль').fill(account.password)
  await page.getByRole('button', { name: 'Войти' }).click()
  await expect(page).toHaveURL(/\/dashboard$/)
}

type WorkerFixtures = {
  server: SignalDeskServer
  /**
   * Simulated seconds per real second of the worker's market (default {@link MARKET_SPEED}). A
   * file that needs fills stamped on the wall clock (the dashboard's counts read "now" from it)
   * runs its own server at '1' with `test.use({ marketSpeed: '1' })`.
   */
  marketSpeed: string
}
type TestFixtures = {
  /** Logs in through the form (as the worker's user unless another account is given). */
  login: (page?: Page, account?: Account) => Promise<void>
  /** A user of its own for this test: no keys, default settings, bot stopped. */
  account: Account
}

let accountSerial = 0

/** Simulated seconds per real second for the e2e server's market. */
export const MARKET_SPEED = '180'
/** Real milliseconds between two closed candles at that speed (15-minute candles). */
export const CANDLE_EVERY_MS = (15 * 60 * 1000) / Number(MARKET_SPEED)

/**
 * One real server per worker: a free port, a temporary data folder with a fresh SQLite file and a
 * user made by `signaldesk user create`, then `signaldesk serve --static-dir web/dist` on a
 * sped-up simulated market. It is
 * stopped by its pid when the worker ends and the folder removed.
 */
export const test = base.extend<TestFixtures, WorkerFixtures>({
  marketSpeed: [MARKET_SPEED, { scope: 'worker', option: true }],
  server: [
    async ({ marketSpeed }, use) => {
      const dir = mkdtempSync(join(tmpdir(), 'signaldesk-e2e-'))
      const logPath = join(dir, 'server.log')
      const database = `sqlite://${join(dir, 'e2e.db')}`
      const username = 'trader'
      const password = `pw-${randomBytes(9).toString('hex')}`
      const createUser = (account: Account) =>
        run(
          [
            'user',
            'create',
            '--username',
            account.username,
            '--password',
            account.password,
            '--database',
            database,
            '--data-dir',
            dir,
          ],
          logPath,
        )
      let historySerial = 0
      const importHistory = async (user: string, history: unknown) => {
        historySerial += 1
        const file = join(dir, `history-${String(historySerial)}.json`)
        writeFileSync(file, JSON.stringify(history, null, 2))
        await run(
          [
            'history',
            'import',
            '--username',
            user,
            '--file',
            file,
            '--database',
            database,
            '--data-dir',
            dir,
          ],
          logPath,
        )
      }
      await createUser({ username, password })
      const port = await freePort()
      const url = `http://127.0.0.1:${port}`
      const log = createWriteStream(logPath, { flags: 'a' })
      const start = () => {
        const started = spawn(
          serverBin,
          [
            'serve',
            '--addr',
            `127.0.0.1:${port}`,
            '--database',
            database,
            '--data-dir',
            dir,
            '--static-dir',
            distDir,
          ],
          {
            stdio: ['ignore', 'pipe', 'pipe'],
            // At 180x (the default) a 15-minute candle closes every 5 seconds.
            env: { ...process.env, SIGNALDESK_MARKET__SPEED: marketSpeed },
          },
        )
        started.stdout.pipe(log, { end: false })
        started.stderr.pipe(log, { end: false })
        return started
      }
      let child = start()
      const restart = async (whileDown?: () => Promise<void>) => {
        await stop(child)
        await whileDown?.()
        child = start()
        await waitForHealthy(url, child, logPath)
      }
      try {
        await waitForHealthy(url, child, logPath)
        await use({ url, username, password, createUser, importHistory, restart })
      } finally {
        await stop(child)
        log.end()
        rmSync(dir, { recursive: true, force: true })
      }
    },
    { scope: 'worker', timeout: 90_000 },
  ],
  baseURL: async ({ server }, use) => {
    await use(server.url)
  },
  account: async ({ server }, use, testInfo) => {
    accountSerial += 1
    const account = {
      username: `trader-${testInfo.workerIndex}-${accountSerial}`,
      password: `pw-${randomBytes(9).toString('hex')}`,
    }
    await server.createUser(account)
    await use(account)
  },
  login: async ({ page, server }, use) => {
    await use((target = page, account: Account = server) => logIn(target, account))
  },
})

export { expect }
