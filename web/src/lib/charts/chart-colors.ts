/**
 * The app's theme colours for the charts. lightweight-charts parses colours through the browser
 * and understands rgb()/hex only, while the theme's CSS variables are oklch(); so the variables
 * are read from <html> and turned into rgb() here.
 */

/** The colours a chart takes from the theme. */
export type ChartPalette = {
  /** Axis labels. */
  text: string
  /** Grid lines and scale borders. */
  grid: string
  /** Profit, take profits, the rising candles. */
  success: string
  /** Loss, the stop, the falling candles. */
  destructive: string
  /** Neutral marks (the entry). */
  foreground: string
}

/** Used where a variable is missing (e.g. in tests): the dark theme's colours. */
export const FALLBACK_PALETTE: ChartPalette = {
  text: 'rgb(163, 170, 184)',
  grid: 'rgb(48, 54, 66)',
  success: 'rgb(46, 198, 145)',
  destructive: 'rgb(240, 82, 82)',
  foreground: 'rgb(236, 239, 244)',
}

const clamp01 = (value: number) => Math.min(1, Math.max(0, value))

/** A CSS number or percentage (`0.5`, `50%`), a percentage counting `percentOf` as 100 %. */
function cssNumber(token: string, percentOf: number): number {
  return token.endsWith('%') ? (Number(token.slice(0, -1)) / 100) * percentOf : Number(token)
}

/** Linear-light sRGB component -> 0..255 (the sRGB transfer function). */
function srgbByte(linear: number): number {
  const value = linear <= 0.0031308 ? 12.92 * linear : 1.055 * Math.pow(linear, 1 / 2.4) - 0.055
  return Math.round(clamp01(value) * 255)
}

/**
 * `oklch(L C H[ / A])` -> `rgb(r, g, b)` or `rgba(r, g, b, a)` (Björn Ottosson's OKLab matrices;
 * colours outside sRGB are clipped); null for anything else.
 */
export function oklchToRgb(color: string): string | null {
  const match = /^oklch\(\s*([^\s/]+)\s+([^\s/]+)\s+([^\s/]+)\s*(?:\/\s*([^\s)]+)\s*)?\)$/i.exec(color.trim())
  if (!match) return null
  const [, l, c, h, a] = match
  if (l === undefined || c === undefined || h === undefined) return null
  const lightness = cssNumber(l, 1)
  const chroma = cssNumber(c, 0.4)
  const hue = h === 'none' ? 0 : (Number(h.replace(/deg$/, '')) * Math.PI) / 180
  const alpha = a === undefined ? 1 : clamp01(cssNumber(a, 1))
  if (![lightness, chroma, hue, alpha].every(Number.isFinite)) return null

  const labA = chroma * Math.cos(hue)
  const labB = chroma * Math.sin(hue)
  const lms = [
    lightness + 0.3963377774 * labA + 0.2158037573 * labB,
    lightness - 0.1055613458 * labA - 0.0638541728 * labB,
    lightness - 0.0894841775 * labA - 1.291485548 * labB,
  ].map((value) => value ** 3)
  const [L = 0, M = 0, S = 0] = lms
  const red = srgbByte(4.0767416621 * L - 3.3077115913 * M + 0.2309699292 * S)
  const green = srgbByte(-1.2684380046 * L + 2.6097574011 * M - 0.3413193965 * S)
  const blue = srgbByte(-0.0041960863 * L - 0.7034186147 * M + 1.707614701 * S)
  const rgb = `${String(red)}, ${String(green)}, ${String(blue)}`
  return alpha === 1 ? `rgb(${rgb})` : `rgba(${rgb}, ${String(alpha)})`
}

/** A colour value lightweight-charts can parse: oklch() converted, anything else as it is; `fallback` when empty. */
export function chartColor(value: string, fallback: string): string {
  const trimmed = value.trim()
  if (trimmed === '') return fallback
  return trimmed.toLowerCase().startsWith('oklch(') ? (oklchToRgb(trimmed) ?? fallback) : trimmed
}

/** The palette of the theme now applied to <html> (its CSS variables). */
export function readChartPalette(): ChartPalette {
  const style = getComputedStyle(document.documentElement)
  const read = (name: string, fallback: string) => chartColor(style.getPropertyValue(name), fallback)
  return {
    text: read('--muted-foreground', FALLBACK_PALETTE.text),
    grid: read('--border', FALLBACK_PALETTE.grid),
    success: read('--success', FALLBACK_PALETTE.success),
    destructive: read('--destructive', FALLBACK_PALETTE.destructive),
    foreground: read('--foreground', FALLBACK_PALETTE.foreground),
  }
}

/** Whether two palettes are the same colours. */
export function samePalette(a: ChartPalette, b: ChartPalette): boolean {
  return (Object.keys(a) as (keyof ChartPalette)[]).every((key) => a[key] === b[key])
}

/** `rgb(r, g, b)` with an alpha, as `rgba(r, g, b, alpha)`; any other colour as it is. */
export function withAlpha(color: string, alpha: number): string {
  const match = /^rgb\(\s*(\d+),\s*(\d+),\s*(\d+)\s*\)$/.exec(color.trim())
  if (!match) return color
  const [, red = '0', green = '0', blue = '0'] = match
  return `rgba(${red}, ${green}, ${blue}, ${String(alpha)})`
}
