// Given values interpolated into templates, then text is escaped everywhere and only Html passes through unchanged.
import { describe, expect, it } from "vitest"
import { html, trusted } from "./Html.ts"

describe("html", () => {
  it("escapes text in content and in quoted attributes", () => {
    const name = `<script>alert("x")</script> & 'y'`
    expect(html`<p title="${name}">${name}</p>`.value).toBe(
      `<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;</p>`
    )
  })

  it("keeps nested templates and trusted markup, joins arrays, drops null, undefined and false", () => {
    const items = ["a<b", "c"].map((item) => html`<li>${item}</li>`)
    expect(html`<ul>${items}</ul>${null}${undefined}${false}${trusted("<hr>")}${0}`.value).toBe("<ul><li>a&lt;b</li><li>c</li></ul><hr>0")
  })
})
