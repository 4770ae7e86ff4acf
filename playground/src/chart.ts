// The geometry of the round analysis chart (analysis-view.ts draws it): where each card's point
// goes and where the axis labels sit. The chart is drawn left to right in both languages (the
// SVG is `direction: ltr`, as a plot is), its axis labels anchored at their end just left of the
// frame, so an Arabic page neither mirrors nor clips them (test/chart.test.mjs).

/** The chart's box, in SVG units. */
export const CHART = { width: 640, height: 200, pad: 40 } as const;

/** One axis label: its text and where its end sits. */
export interface AxisLabel {
  text: string;
  x: number;
  y: number;
}

/** The chart's points and labels, for the values of the cards of a round on a 0..total scale. */
export interface ChartLayout {
  points: { x: number; y: number }[];
  /** The labels of the scale's top, middle and bottom, anchored at their end. */
  axis: AxisLabel[];
  /** The name of the scale, above the labels. */
  unit: AxisLabel;
  /** The middle line (half the total). */
  half: number;
}

export function chartLayout(values: readonly number[], total: number, unit: string): ChartLayout {
  const { width, height, pad } = CHART;
  const x = (i: number) => pad + ((width - 2 * pad) * i) / Math.max(1, values.length - 1);
  const y = (points: number) => height - pad - ((height - 2 * pad) * points) / total;
  const half = total / 2;
  const labelX = pad - 4;
  return {
    points: values.map((value, i) => ({ x: x(i), y: y(value) })),
    axis: [total, half, 0].map((value) => ({ text: String(value), x: labelX, y: y(value) + 4 })),
    unit: { text: unit, x: labelX, y: pad - 12 },
    half: y(half),
  };
}
