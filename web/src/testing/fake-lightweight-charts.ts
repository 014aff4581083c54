/**
 * jsdom has no canvas, so Vitest swaps lightweight-charts' `createChart` and `createSeriesMarkers`
 * for these fakes (setup-tests.ts; the enums and series definitions stay the real ones). A fake
 * chart puts a <canvas data-fake-chart> in its container and records what it was given:
 * `fakeCharts` lists every chart made since the test began.
 */

type Options = Record<string, unknown>

export type FakePriceLine = { options: Options; removed: boolean }

export type FakeSeries = {
  kind: string
  options: Options
  data: unknown[]
  priceLines: FakePriceLine[]
  markers: unknown[]
}

export type FakeChart = {
  container: HTMLElement
  options: Options
  series: FakeSeries[]
  removed: boolean
  fitted: number
}

export const fakeCharts: FakeChart[] = []

export function resetFakeCharts() {
  fakeCharts.length = 0
}

function seriesApi(record: FakeSeries) {
  return {
    setData: (data: unknown[]) => {
      record.data = [...data]
    },
    applyOptions: (options: Options) => {
      record.options = { ...record.options, ...options }
    },
    createPriceLine: (options: Options) => {
      const line: FakePriceLine = { options, removed: false }
      record.priceLines.push(line)
      return {
        applyOptions: (more: Options) => {
          line.options = { ...line.options, ...more }
        },
        options: () => line.options,
      }
    },
    removePriceLine: () => undefined,
    _fake: record,
  }
}

type SeriesApi = ReturnType<typeof seriesApi>

export function createChart(container: HTMLElement, options: Options = {}) {
  const record: FakeChart = { container, options, series: [], removed: false, fitted: 0 }
  fakeCharts.push(record)
  const canvas = document.createElement('canvas')
  canvas.dataset.fakeChart = ''
  container.appendChild(canvas)
  return {
    addSeries: (definition: { type?: string } | undefined, seriesOptions: Options = {}) => {
      const series: FakeSeries = {
        kind: definition?.type ?? 'unknown',
        options: seriesOptions,
        data: [],
        priceLines: [],
        markers: [],
      }
      record.series.push(series)
      return seriesApi(series)
    },
    applyOptions: (more: Options) => {
      record.options = { ...record.options, ...more }
    },
    timeScale: () => ({
      fitContent: () => {
        record.fitted += 1
      },
    }),
    remove: () => {
      record.removed = true
      canvas.remove()
    },
  }
}

export function createSeriesMarkers(series: SeriesApi, markers: unknown[] = []) {
  series._fake.markers = [...markers]
  return {
    setMarkers: (next: unknown[]) => {
      series._fake.markers = [...next]
    },
    markers: () => series._fake.markers,
    detach: () => undefined,
  }
}
