import uPlot from 'uplot';

/**
 * Draw time of a curve with `n` points: builds a uPlot chart off-screen and measures from `setData` to the
 * end of the draw it triggers (the `draw` hook), best of `repeats`.
 */
export async function benchPlot(
  n: number,
  repeats = 5,
): Promise<{ points: number; drawMs: number; runs: number[] }> {
  const host = document.createElement('div');
  Object.assign(host.style, {
    position: 'fixed',
    left: '0',
    top: '0',
    width: '900px',
    height: '300px',
    zIndex: '-1',
  });
  document.body.appendChild(host);
  const x = new Float64Array(n);
  const y = new Float64Array(n);
  let drawn: (() => void) | null = null;
  const u = new uPlot(
    {
      width: 900,
      height: 300,
      scales: { x: { time: false } },
      legend: { show: false },
      series: [{}, { stroke: '#5fb3ff', points: { show: false } }],
      hooks: { draw: [() => drawn?.()] },
    },
    [[], []],
    host,
  );
  const runs: number[] = [];
  for (let r = 0; r < repeats; r++) {
    for (let i = 0; i < n; i++) {
      x[i] = i / 120;
      y[i] = Math.sin(i * 0.01 * (r + 1)) + 0.1 * Math.sin(i * 0.37);
    }
    const done = new Promise<void>((resolve) => {
      drawn = resolve;
    });
    const t0 = performance.now();
    u.setData([x, y] as unknown as uPlot.AlignedData);
    await done;
    runs.push(performance.now() - t0);
  }
  u.destroy();
  host.remove();
  return { points: n, drawMs: Math.min(...runs), runs };
}
