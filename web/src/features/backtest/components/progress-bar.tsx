/** A run's progress, 0 to 1, as a bar with its percentage (role "progressbar"). */
export function ProgressBar({ value, label }: { value: number; label: string }) {
  const percent = Math.round(Math.min(1, Math.max(0, value)) * 100)
  return (
    <div className="flex items-center gap-2">
      <div
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
        className="h-2 w-24 overflow-hidden rounded-full bg-muted"
      >
        <div className="h-full bg-primary transition-[width]" style={{ width: `${String(percent)}%` }} />
      </div>
      <span className="text-xs text-muted-foreground tabular-nums">{percent}%</span>
    </div>
  )
}
