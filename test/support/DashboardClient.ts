// Drives the dashboard's HTML forms without a browser: a cookie jar, the CSRF token scraped from each page, 303s followed.

export interface DashboardResponse {
  readonly status: number
  readonly headers: Headers
  readonly body: string
}

/** One HTTP exchange; `fetchTransport` talks to a real server, tests in-process adapt fastify's inject to it. */
export type Transport = (request: {
  readonly method: string
  readonly path: string
  readonly headers: Readonly<Record<string, string>>
  readonly body?: string
}) => Promise<DashboardResponse>

export const fetchTransport =
  (origin: string): Transport =>
  async (request) => {
    const response = await fetch(`${origin}${request.path}`, {
      method: request.method,
      headers: request.headers,
      redirect: "manual",
      ...(request.body === undefined ? {} : { body: request.body })
    })
    return { status: response.status, headers: response.headers, body: await response.text() }
  }

export const csrfOf = (html: string): string => /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? ""

export interface DashboardClient {
  readonly cookies: Map<string, string>
  /** The CSRF token of the last page that had a form. */
  csrf(): string
  get(path: string): Promise<DashboardResponse>
  /** Posts a form (the current CSRF token unless `_csrf` is given) and follows a 303 with a GET. */
  post(
    path: string,
    fields: Readonly<Record<string, string | ReadonlyArray<string>>>,
    headers?: Record<string, string>
  ): Promise<DashboardResponse>
  signIn(email: string, password: string): Promise<DashboardResponse>
}

export const dashboardClient = (transport: Transport, origin: string): DashboardClient => {
  const cookies = new Map<string, string>()
  let token = ""
  const remember = (response: DashboardResponse) => {
    for (const line of response.headers.getSetCookie()) {
      const [pair = ""] = line.split(";")
      const eq = pair.indexOf("=")
      const name = pair.slice(0, eq)
      const value = pair.slice(eq + 1)
      if (/Max-Age=0/i.test(line)) cookies.delete(name)
      else cookies.set(name, value)
    }
    const found = csrfOf(response.body)
    if (found !== "") token = found
    return response
  }
  const cookieHeader = (): Record<string, string> =>
    cookies.size === 0 ? {} : { cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join("; ") }

  const get = async (path: string) => remember(await transport({ method: "GET", path, headers: { ...cookieHeader() } }))
  const post: DashboardClient["post"] = async (path, fields, headers = {}) => {
    const form = new URLSearchParams()
    if (!("_csrf" in fields)) form.append("_csrf", token)
    for (const [name, value] of Object.entries(fields)) {
      for (const item of typeof value === "string" ? [value] : value) form.append(name, item)
    }
    const response = remember(
      await transport({
        method: "POST",
        path,
        headers: { "content-type": "application/x-www-form-urlencoded", origin, ...cookieHeader(), ...headers },
        body: form.toString()
      })
    )
    const location = response.headers.get("location")
    return response.status === 303 && location !== null ? get(location) : response
  }
  return {
    cookies,
    csrf: () => token,
    get,
    post,
    signIn: async (email, password) => {
      await get("/dashboard/login")
      return post("/dashboard/login", { email, password })
    }
  }
}
