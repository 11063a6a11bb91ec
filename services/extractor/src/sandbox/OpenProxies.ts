// The egress proxies open in this process, by URL: each proxy lists its Unix socket here, and a confined run is bridged only to one listed.

/** The open proxies' sockets by URL, so the process runner finds the socket behind the `--proxy`/`-http_proxy` it is given. */
const openProxies = new Map<string, string>()

export const addOpenProxy = (url: string, socketPath: string): void => {
  openProxies.set(url, socketPath)
}

export const removeOpenProxy = (url: string): void => {
  openProxies.delete(url)
}

/** The socket behind a proxy URL this process opened, or undefined (a URL the runner must not bridge to). */
export const egressSocketPath = (url: string): string | undefined => openProxies.get(url)
