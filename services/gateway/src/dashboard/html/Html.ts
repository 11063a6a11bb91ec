// HTML templates without a framework: a tagged template that escapes every interpolated value unless it is Html already.

export class Html {
  readonly value: string
  constructor(value: string) {
    this.value = value
  }
  toString(): string {
    return this.value
  }
}

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;", "`": "&#96;" }

export const escapeHtml = (text: string): string => text.replace(/[&<>"'`]/g, (ch) => ESCAPES[ch] ?? ch)

export type Interpolation = Html | string | number | boolean | null | undefined | ReadonlyArray<Interpolation>

const render = (value: Interpolation): string => {
  if (value === null || value === undefined || value === false) return ""
  if (value instanceof Html) return value.value
  if (Array.isArray(value)) return value.map(render).join("")
  return escapeHtml(String(value))
}

/** html`<p>${text}</p>`: strings are escaped (also inside attribute values, which must be quoted), Html is kept. */
export const html = (strings: TemplateStringsArray, ...values: ReadonlyArray<Interpolation>): Html => {
  let out = strings[0] ?? ""
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? "")
  })
  return new Html(out)
}

/** Markup that is trusted as is (only ever constants from this code base). */
export const trusted = (markup: string): Html => new Html(markup)
