import { create } from 'qrcode'
import { useMemo } from 'react'

/**
 * A QR code drawn as an SVG path from the `qrcode` library's module matrix: no canvas, no data
 * URL and no injected markup, so it renders under the app's Content-Security-Policy and in tests.
 */
export function QrCode({ text, label, className }: { text: string; label: string; className?: string }) {
  const { size, path } = useMemo(() => {
    const { modules } = create(text, { errorCorrectionLevel: 'M' })
    let d = ''
    for (let row = 0; row < modules.size; row += 1) {
      for (let col = 0; col < modules.size; col += 1) {
        if (modules.get(row, col)) d += `M${col + 4} ${row + 4}h1v1h-1z`
      }
    }
    return { size: modules.size + 8, path: d }
  }, [text])

  return (
    <svg
      role="img"
      aria-label={label}
      viewBox={`0 0 ${size} ${size}`}
      shapeRendering="crispEdges"
      className={className}
    >
      <rect width={size} height={size} fill="#ffffff" />
      <path d={path} fill="#000000" />
    </svg>
  )
}
