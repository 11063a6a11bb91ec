// The small XML writer the NFO files need: escaped text in elements, nothing a media's title could break out of.

/** XML 1.0 refuses most control characters even escaped; they are dropped. */
const INVALID_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/gu

export const escapeXml = (text: string): string =>
  text
    .replace(INVALID_XML, "")
    .replace(/&/gu, "&amp;")
    .replace(/</gu, "&lt;")
    .replace(/>/gu, "&gt;")
    .replace(/"/gu, "&quot;")
    .replace(/'/gu, "&apos;")

export interface NfoElement {
  readonly name: string
  readonly text: string
  readonly attributes?: Readonly<Record<string, string>>
}

const element = ({ attributes, name, text }: NfoElement): string => {
  const written = Object.entries(attributes ?? {})
    .map(([key, value]) => ` ${key}="${escapeXml(value)}"`)
    .join("")
  return `  <${name}${written}>${escapeXml(text)}</${name}>`
}

/** A whole NFO document: a root element holding the given children, the absent ones (null) left out. */
export const nfoDocument = (root: string, children: ReadonlyArray<NfoElement | null>): string =>
  [
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>`,
    `<${root}>`,
    ...children.filter((child): child is NfoElement => child !== null).map(element),
    `</${root}>`,
    ""
  ].join("\n")
