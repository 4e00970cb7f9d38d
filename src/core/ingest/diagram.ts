// Which figures are diagrams: drawings of a structure (a system's architecture, a pipeline, a schematic) rather than
// plots of measurements. Told from the caption alone, as a reader skimming the list of figures would: the caption
// names a drawing ("architecture", "pipeline", "diagram", "schematic", "flowchart", "workflow", "overview of",
// "illustration of") and no measurement ("plot", "vs", "versus", "curve", "histogram", "distribution", "accuracy",
// "as a function of", "results" …): "Pipeline throughput versus batch size" is a plot of a pipeline, not a drawing.
// A figure without a caption stays a figure.

const DRAWING =
  /\b(?:architectures?|pipelines?|diagrams?|schematic(?:s|ally)?|flow\s?charts?|workflows?|overview of|illustration of|block diagram)\b/i;
const MEASUREMENT =
  /\b(?:plots?|plotted|vs\.?|versus|curves?|histograms?|distributions?|accuracy|recall|precision|latency|throughput|results?|as a function of|scatter|heat\s?maps?|ablations?|performance|error rates?|loss)\b/i;

/** 'diagram' for a figure whose caption names a drawing of a structure and no measurement, else 'figure'. */
export function figureKind(caption: string | null | undefined): 'figure' | 'diagram' {
  if (!caption) return 'figure';
  return DRAWING.test(caption) && !MEASUREMENT.test(caption) ? 'diagram' : 'figure';
}
