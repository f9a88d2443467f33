import { parse, renderModule, View, type Spec } from 'vega'
import { compile, type TopLevelSpec } from 'vega-lite'
import type { VegaLiteSpec } from './plots.ts'

/** The parts of Vega's view and renderer that its own headless `toSVG` uses (vega-view's renderHeadless and initializeRenderer). */
interface ViewInternals {
  readonly _viewWidth: number
  readonly _viewHeight: number
  readonly _origin: readonly [number, number]
  readonly _scenegraph: { readonly root: unknown }
}
interface Padding {
  readonly left: number
  readonly right: number
  readonly top: number
  readonly bottom: number
}
interface StringRenderer {
  initialize(element: null, width: number, height: number, origin: readonly [number, number], scaleFactor: number, options: object): StringRenderer
  background(colour: unknown): StringRenderer
  render(scene: unknown): StringRenderer
  svg(): string
}

/** Vega-Lite's compiler notes (scale merges between layers) are not the reader's business. */
const SILENT = { level: () => SILENT, error: () => SILENT, warn: () => SILENT, info: () => SILENT, debug: () => SILENT } as never

/**
 * Renders a Vega-Lite specification to an SVG string, synchronously and
 * without a DOM, a canvas or any I/O: Vega-Lite compiles it to Vega, a
 * headless Vega view (renderer `none`) lays the scene out, and Vega's own
 * SVG string renderer writes it, exactly as `view.toSVG()` does but without
 * its wait for images to load (the figures hold none). So the report stays a
 * synchronous, pure function of the records; a test checks the output
 * equals `toSVG()`'s byte for byte. The same specification gives the same
 * bytes on every machine: Vega estimates text width, no font is measured.
 */
export function renderSvg(spec: VegaLiteSpec): string {
  const view = new View(parse(compile(spec as unknown as TopLevelSpec, { logger: SILENT }).spec as Spec), { renderer: 'none' })
  try {
    view.run()
    const internals = view as unknown as ViewInternals
    const padding = view.padding() as unknown as Padding
    // One argument reads the module (two would replace it).
    const Renderer = (renderModule as unknown as (name: string) => { headless: new (loader: unknown) => StringRenderer })('svg').headless
    return new Renderer(view.loader())
      .initialize(
        null,
        Math.max(0, internals._viewWidth + padding.left + padding.right),
        Math.max(0, internals._viewHeight + padding.top + padding.bottom),
        [padding.left + internals._origin[0], padding.top + internals._origin[1]],
        1,
        {},
      )
      .background(view.background())
      .render(internals._scenegraph.root)
      .svg()
  } finally {
    view.finalize()
  }
}

/** Vega's own asynchronous path, for the test that `renderSvg` matches it. */
export async function renderSvgAsync(spec: VegaLiteSpec): Promise<string> {
  const view = new View(parse(compile(spec as unknown as TopLevelSpec, { logger: SILENT }).spec as Spec), { renderer: 'none' })
  try {
    return await view.toSVG()
  } finally {
    view.finalize()
  }
}
