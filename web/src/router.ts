import { useEffect, useState } from 'preact/hooks'

/** The dashboard's pages live under /app; the server answers index.html for every one of them. */
export const BASE = '/app'

const listeners = new Set<() => void>()
/**
 * How many times the person went to another page (a link followed, Back, Forward); a query changed in
 * place (`replaceRoute`: a filter, a search) is no new page. The shell moves the focus on a new one.
 */
let visits = 0
export const visitCount = () => visits
window.addEventListener('popstate', () => {
  visits++
  listeners.forEach((l) => l())
})

export function navigate(to: string): void {
  history.pushState(null, '', `${BASE}${to}`)
  visits++
  listeners.forEach((l) => l())
  window.scrollTo(0, 0)
}

/** Goes to a page without a new history entry: a query that said something once (`?sso_error=`) leaves. */
export function replaceRoute(to: string): void {
  history.replaceState(null, '', `${BASE}${to}`)
  listeners.forEach((l) => l())
}

/** The current page's path below /app (`/`, `/links/lnk_…`) and its query. */
export function useRoute(): { path: string; query: URLSearchParams } {
  const read = () => ({ path: location.pathname.slice(BASE.length) || '/', query: new URLSearchParams(location.search) })
  const [route, setRoute] = useState(read)
  useEffect(() => {
    const listener = () => setRoute(read())
    listeners.add(listener)
    return () => void listeners.delete(listener)
  }, [])
  return route
}

/** Changes some of the URL's query (an empty value removes it), without a new history entry. */
export function useQueryState() {
  const { path, query } = useRoute()
  const set = (changes: Record<string, string | null>) => {
    const next = new URLSearchParams(query)
    for (const [k, v] of Object.entries(changes))
      if (v === null || v === '') next.delete(k)
      else next.set(k, v)
    const q = next.toString()
    replaceRoute(q === '' ? path : `${path}?${q}`)
  }
  return { path, query, set }
}

/** A link inside the dashboard: a real href (open in a new tab works), navigated without a reload. */
export function onNavigate(to: string) {
  return (event: MouseEvent) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return
    event.preventDefault()
    navigate(to)
  }
}
