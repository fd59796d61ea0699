// Client-side routes under /dashboard: the server answers index.html for every sub-path without
// a file extension (docs/api.md §12), so these survive a reload and can be bookmarked.
import { useEffect, useState } from 'preact/hooks';

export const base = '/dashboard';

function currentRoute(): string {
  const path = window.location.pathname;
  const rest = path.startsWith(base) ? path.slice(base.length) : path;
  return rest === '' ? '/' : rest.replace(/\/+$/, '') || '/';
}

const listeners = new Set<() => void>();
window.addEventListener('popstate', () => listeners.forEach((listener) => listener()));

export function navigate(route: string): void {
  window.history.pushState(null, '', base + route);
  listeners.forEach((listener) => listener());
}

export function useRoute(): string {
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    const listener = (): void => setRoute(currentRoute());
    listeners.add(listener);
    return () => void listeners.delete(listener);
  }, []);
  return route;
}

/** A link that changes the route without reloading the page. */
export function linkProps(route: string): { href: string; onClick: (event: MouseEvent) => void } {
  return {
    href: base + route,
    onClick: (event: MouseEvent) => {
      if (event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
      event.preventDefault();
      navigate(route);
    },
  };
}
