import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { Marker } from './curves.js';

export type { Marker };

export interface SeriesStyle {
  label: string;
  color: string;
  width?: number;
  dash?: number[];
  /** Own y scale key (defaults to 'y'). */
  scale?: string;
}

/** Points drawn as dots over the curves (keys), in one colour. */
export interface DotSet {
  x: ArrayLike<number>;
  y: ArrayLike<number>;
  color: string;
  /** Radius in CSS pixels. */
  radius?: number;
  /** Filled (default) or a ring. */
  ring?: boolean;
  /** Keys the dots stand for (more than the dots when thinned for the plot's pixels). */
  keys?: number;
}

export interface LinePlotOptions {
  series: SeriesStyle[];
  xLabel?: string;
  yLabel?: string;
  /** Called with the x value under a click on the plotting area. */
  onSeek?: (x: number) => void;
  /** Extra drawing after the series (in canvas pixels). */
  draw?: (u: uPlot) => void;
  logX?: boolean;
  legend?: boolean;
}

/**
 * A thin wrapper around uPlot: fills its host, redraws on resize, draws markers as ticks on the time axis, a
 * playhead line as a DOM overlay (so following playback never redraws the curves) and seeks on click.
 */
export class LinePlot {
  readonly plot: uPlot;
  private markers: Marker[] = [];
  private dots: DotSet[] = [];
  private readonly cursorEl: HTMLDivElement;
  private cursorX: number | null = null;
  /** Milliseconds the last `setData` took, including the synchronous draw. */
  lastDrawMs = 0;
  points = 0;

  constructor(
    readonly host: HTMLElement,
    opts: LinePlotOptions,
  ) {
    const axisStroke = '#8a93a3';
    const grid = { stroke: '#262b33', width: 1 };
    const w = Math.max(200, host.clientWidth);
    const h = Math.max(120, host.clientHeight);
    this.plot = new uPlot(
      {
        width: w,
        height: h,
        pxAlign: false,
        legend: { show: opts.legend !== false, live: false },
        cursor: { drag: { x: false, y: false }, points: { show: false } },
        scales: { x: { time: false, distr: opts.logX ? 3 : 1 } },
        axes: [
          { stroke: axisStroke, grid, ticks: grid, label: opts.xLabel, labelSize: opts.xLabel ? 18 : 0 },
          {
            stroke: axisStroke,
            grid,
            ticks: grid,
            label: opts.yLabel,
            labelSize: opts.yLabel ? 18 : 0,
            size: 50,
          },
        ],
        series: [
          { label: opts.xLabel ?? 'x' },
          ...opts.series.map((s) => ({
            label: s.label,
            stroke: s.color,
            width: s.width ?? 1.25,
            dash: s.dash,
            scale: s.scale ?? 'y',
            spanGaps: true,
            points: { show: false },
          })),
        ],
        hooks: {
          draw: [
            (u: uPlot) => {
              this.drawMarkers(u);
              this.drawDots(u);
              opts.draw?.(u);
            },
          ],
        },
      },
      [[], ...opts.series.map(() => [])] as unknown as uPlot.AlignedData,
      host,
    );
    this.plot.root.dataset.testid = 'uplot';
    this.cursorEl = document.createElement('div');
    Object.assign(this.cursorEl.style, {
      position: 'absolute',
      top: '0',
      bottom: '0',
      width: '1px',
      background: '#ffb454',
      pointerEvents: 'none',
      display: 'none',
    });
    this.plot.over.appendChild(this.cursorEl);
    if (opts.onSeek) {
      const seek = opts.onSeek;
      this.plot.over.style.cursor = 'pointer';
      this.plot.over.addEventListener('click', (e) => {
        const x = this.plot.posToVal(e.offsetX, 'x');
        if (Number.isFinite(x)) seek(x);
      });
    }
    // a marker's kind as a tooltip when the pointer is near its tick
    this.plot.over.addEventListener('mousemove', (e) => {
      let best: Marker | null = null;
      let bestD = 5;
      for (const m of this.markers) {
        const d = Math.abs(this.plot.valToPos(m.x, 'x') - e.offsetX);
        if (d < bestD) {
          bestD = d;
          best = m;
        }
      }
      this.plot.over.title = best?.title ? `${best.title} at ${best.x.toFixed(3)} s` : '';
    });
    new ResizeObserver(() => this.resize()).observe(host);
  }

  resize(): void {
    const w = Math.max(200, this.host.clientWidth);
    const legendH = this.plot.root.querySelector('.u-legend')?.clientHeight ?? 0;
    const h = Math.max(100, this.host.clientHeight - legendH - 4);
    if (Math.abs(w - this.plot.width) > 1 || Math.abs(h - this.plot.height) > 1) {
      this.plot.setSize({ width: w, height: h });
      this.placeCursor();
    }
  }

  setData(data: (ArrayLike<number | null> | null)[], markers: Marker[] = [], dots: DotSet[] = []): void {
    this.markers = markers;
    this.dots = dots;
    const t0 = performance.now();
    this.plot.setData(data as unknown as uPlot.AlignedData);
    this.lastDrawMs = performance.now() - t0;
    this.points = (data[0]?.length ?? 0) * (data.length - 1);
    this.resize();
    this.placeCursor();
  }

  setSeriesVisible(index: number, show: boolean): void {
    this.plot.setSeries(index + 1, { show });
  }

  /** Moves the playhead overlay to x (or hides it with null). */
  setCursor(x: number | null): void {
    this.cursorX = x;
    this.placeCursor();
  }

  private placeCursor(): void {
    if (this.cursorX === null) {
      this.cursorEl.style.display = 'none';
      return;
    }
    const left = this.plot.valToPos(this.cursorX, 'x');
    if (!Number.isFinite(left)) return;
    this.cursorEl.style.display = 'block';
    this.cursorEl.style.left = `${left}px`;
  }

  private drawMarkers(u: uPlot): void {
    if (this.markers.length === 0) return;
    const ctx = u.ctx;
    const { top, height } = u.bbox;
    const tick = Math.min(14 * devicePixelRatio, height * 0.12);
    ctx.save();
    ctx.lineWidth = Math.max(1, devicePixelRatio);
    for (const m of this.markers) {
      const x = u.valToPos(m.x, 'x', true);
      ctx.strokeStyle = m.color;
      ctx.beginPath();
      ctx.moveTo(x, top + height);
      ctx.lineTo(x, top + height - tick);
      ctx.stroke();
      ctx.globalAlpha = 0.18;
      ctx.beginPath();
      ctx.moveTo(x, top);
      ctx.lineTo(x, top + height);
      ctx.stroke();
      ctx.globalAlpha = 1;
    }
    ctx.restore();
  }

  /**
   * Which canvas pixels already hold a dot of the set being drawn, as the index + 1 of that dot (reused
   * between draws).
   */
  private dotCells = new Int32Array(0);

  /**
   * Draws the key dots. A dot whose centre falls on a canvas pixel where the same set already has one, or
   * outside the plotting area, is skipped: it would change no pixel by more than the one-pixel offset, and a
   * track of a million keys would otherwise make one path of a million arcs, which the canvas rasterises
   * in minutes (the studio's slow open of long glTF animations). So a set draws at most one dot per pixel.
   * Filled dots on consecutive pixels of one pixel column (a dense track draws columns of them) are drawn
   * as one capsule of the dots' width from the first to the last, in the same path: the union of those
   * discs but for their centres' sub-pixel spread across the column (within half a pixel), and a few
   * thousand shapes to rasterise instead of hundreds of thousands.
   */
  private drawDots(u: uPlot): void {
    if (this.dots.length === 0) return;
    const ctx = u.ctx;
    const { left, top, width, height } = u.bbox;
    const w = Math.max(1, Math.ceil(width) + 1);
    const h = Math.max(1, Math.ceil(height) + 1);
    if (this.dotCells.length < w * h) this.dotCells = new Int32Array(w * h);
    const cells = this.dotCells;
    ctx.save();
    ctx.lineWidth = Math.max(1, devicePixelRatio);
    for (const d of this.dots) {
      const r = (d.radius ?? 2.5) * devicePixelRatio;
      cells.fill(0, 0, w * h);
      ctx.fillStyle = d.color;
      ctx.strokeStyle = d.color;
      ctx.beginPath();
      const px = new Float64Array(d.x.length);
      const py = new Float64Array(d.x.length);
      for (let i = 0; i < d.x.length; i++) {
        const x = u.valToPos(d.x[i], 'x', true);
        const y = u.valToPos(d.y[i], 'y', true);
        const cx = Math.round(x - left);
        const cy = Math.round(y - top);
        if (!(cx >= 0 && cx < w && cy >= 0 && cy < h)) continue;
        if (cells[cy * w + cx]) continue;
        cells[cy * w + cx] = i + 1;
        px[i] = x;
        py[i] = y;
        if (d.ring) {
          ctx.moveTo(x + r, y);
          ctx.arc(x, y, r, 0, 2 * Math.PI);
        }
      }
      if (d.ring) {
        ctx.stroke();
        continue;
      }
      // filled: per pixel column, each run of consecutive pixels holding a dot is one shape
      for (let cx = 0; cx < w; cx++) {
        let cy = 0;
        while (cy < h) {
          if (!cells[cy * w + cx]) {
            cy++;
            continue;
          }
          const first = cells[cy * w + cx] - 1;
          let end = cy;
          while (end + 1 < h && cells[(end + 1) * w + cx]) end++;
          if (end === cy) {
            ctx.moveTo(px[first] + r, py[first]);
            ctx.arc(px[first], py[first], r, 0, 2 * Math.PI);
          } else {
            // a capsule, wound as the discs are (clockwise on the canvas): their union under 'nonzero'
            const x = left + cx;
            const yTop = top + cy;
            const yBottom = top + end;
            ctx.moveTo(x + r, yBottom);
            ctx.arc(x, yBottom, r, 0, Math.PI);
            ctx.lineTo(x - r, yTop);
            ctx.arc(x, yTop, r, Math.PI, 2 * Math.PI);
            ctx.closePath();
          }
          cy = end + 1;
        }
      }
      ctx.fill();
    }
    ctx.restore();
  }

  /** Counts non-transparent pixels of the plot canvas (the e2e "curves drawn" check). */
  inkedPixels(): number {
    const c = this.plot.root.querySelector('canvas');
    if (!c) return 0;
    const px = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 3; i < px.length; i += 16) if (px[i] > 0) n++;
    return n;
  }

  /**
   * Counts pixels of the plot canvas drawn in one colour (`#rrggbb`, within `tolerance` per channel): the
   * e2e check that a series itself was drawn, since grid lines, axes and markers also count as ink.
   */
  colourPixels(colour: string, tolerance = 24): number {
    const c = this.plot.root.querySelector('canvas');
    if (!c) return 0;
    const r = Number.parseInt(colour.slice(1, 3), 16);
    const g = Number.parseInt(colour.slice(3, 5), 16);
    const b = Number.parseInt(colour.slice(5, 7), 16);
    const px = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < px.length; i += 4) {
      if (
        px[i + 3] > 200 &&
        Math.abs(px[i] - r) <= tolerance &&
        Math.abs(px[i + 1] - g) <= tolerance &&
        Math.abs(px[i + 2] - b) <= tolerance
      )
        n++;
    }
    return n;
  }

  destroy(): void {
    this.plot.destroy();
  }
}
