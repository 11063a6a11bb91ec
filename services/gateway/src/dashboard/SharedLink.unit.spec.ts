// Given what share sheets send (a url, a text with a link in it, a title), then the link is found, without trailing punctuation.
import { describe, expect, it } from "vitest"
import { sharedLinkOf } from "./SharedLink.ts"

describe("sharedLinkOf", () => {
  it("takes url first", () =>
    expect(sharedLinkOf({ url: "https://a.example/v/1", text: "https://b.example/" })).toBe("https://a.example/v/1"))
  it("finds the link in Android's text", () =>
    expect(sharedLinkOf({ title: "A clip", text: "Look at this https://vimeo.com/76979871." })).toBe("https://vimeo.com/76979871"))
  it("ends a link at a closing bracket", () => expect(sharedLinkOf({ text: "(see https://a.example/x)" })).toBe("https://a.example/x"))
  it("has nothing without a web address", () => {
    expect(sharedLinkOf({ text: "just words", url: "ftp://a.example/f" })).toBe("")
    expect(sharedLinkOf(undefined)).toBe("")
  })
})
