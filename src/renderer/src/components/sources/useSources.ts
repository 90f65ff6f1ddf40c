import { useEffect } from 'react'
import type { SourceStatus } from '../../../../shared/contract/sources'
import { useSourcesStore } from '../../stores/sources'

/** The sources' state: loaded once, then kept current by the `sources.status` push. */
export function useSources(): { sources: SourceStatus[] | null; reload: () => Promise<void> } {
  const { sources, load } = useSourcesStore()
  useEffect(() => {
    void load()
  }, [load])
  return { sources, reload: load }
}
