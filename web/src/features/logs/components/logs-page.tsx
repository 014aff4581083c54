import { useId, useState } from 'react'
import { PageHeader } from '@/components/page-header'
import { Card, CardContent } from '@/components/ui/card'
import { Label } from '@/components/ui/label'
import { NativeSelect } from '@/components/ui/native-select'
import { LOG_LEVEL_FILTERS, type LogLevelFilter } from '@/features/logs/api/get-logs'
import { LogsTable } from '@/features/logs/components/logs-table'
import { useUserTimeZone } from '@/features/settings/api/use-user-time-zone'
import { logsStrings as s } from '@/features/logs/strings'

function isLevelFilter(value: string): value is LogLevelFilter {
  return (LOG_LEVEL_FILTERS as readonly string[]).includes(value)
}

/**
 * /logs (spec section 2): the level filter (All Levels, Info, Warning, Error) and the table of
 * Time, Level and Message. New entries arrive over the live feed and are prepended (1000 at most);
 * only the rows in view are rendered (lib/use-windowed-rows.ts).
 */
export function LogsPage() {
  const id = useId()
  const timeZone = useUserTimeZone()
  const [level, setLevel] = useState<LogLevelFilter>('all')

  return (
    <div className="space-y-6">
      <PageHeader
        title={s.title}
        description={s.description(timeZone)}
        actions={
          <div className="flex items-center gap-3">
            <Label htmlFor={`${id}-level`} className="text-muted-foreground">
              {s.levelLabel}
            </Label>
            <NativeSelect
              id={`${id}-level`}
              className="w-40"
              value={level}
              onChange={(event) => {
                if (isLevelFilter(event.target.value)) setLevel(event.target.value)
              }}
            >
              {LOG_LEVEL_FILTERS.map((value) => (
                <option key={value} value={value}>
                  {s.levelOptions[value]}
                </option>
              ))}
            </NativeSelect>
          </div>
        }
      />
      <Card>
        <CardContent className="p-2 sm:p-4">
          {/* A new level starts at the top of its list. */}
          <LogsTable key={level} level={level} label={s.title} />
        </CardContent>
      </Card>
    </div>
  )
}
