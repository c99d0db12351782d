import { DEFAULT_SETTINGS, type ProcessSettings } from './messages.js';

/** The processing controls: unroll, smooth, resample. Every change is sent (debounced) to `onChange`. */
export class ProcessingPanel {
  settings: ProcessSettings = { ...DEFAULT_SETTINGS };
  private timer = 0;

  constructor(
    readonly host: HTMLElement,
    readonly onChange: (s: ProcessSettings) => void,
  ) {
    host.innerHTML = `
      <fieldset>
        <legend><label><input type="checkbox" data-key="unroll" data-testid="unroll" /> Unroll</label></legend>
        <div class="note">Quaternion hemispheres made continuous; Euler curves through the equivalent-triple filter.</div>
      </fieldset>
      <fieldset>
        <legend><label><input type="checkbox" data-key="smooth" data-testid="smooth" /> Smooth</label></legend>
        <div class="row"><label>kernel</label><select data-key="smoothKernel" data-testid="smooth-kernel">
          <option value="gaussian">gaussian</option><option value="tent">tent</option>
          <option value="catmull-rom">catmull-rom</option><option value="cubic6">cubic6</option>
          <option value="lanczos2">lanczos2</option><option value="unsharp">unsharp (sharpen)</option></select></div>
        <div class="row" data-when="sigma"><label>sigma</label><input type="range" min="1" max="100" step="0.5" data-key="sigmaMs" data-testid="sigma" />
          <span data-out="sigma"></span></div>
        <div class="row" data-when="width"><label>width ×</label><input type="range" min="0.5" max="12" step="0.5" data-key="sigma" data-testid="width" />
          <span data-out="width"></span></div>
        <div class="row"><label>space</label><select data-key="space" data-testid="space">
          <option value="raw">raw</option><option value="log">log</option><option value="eigen">eigen</option></select></div>
      </fieldset>
      <fieldset>
        <legend><label><input type="checkbox" data-key="resample" data-testid="resample" /> Resample</label></legend>
        <div class="row"><label>rate (Hz)</label><input type="number" min="1" max="480" step="any" data-key="rate" data-testid="rate" style="width:70px" /></div>
        <div class="row"><label>kernel</label><select data-key="resampleKernel" data-testid="resample-kernel">
          <option value="nearest">nearest</option><option value="linear">linear</option>
          <option value="catmull-rom">catmull-rom</option><option value="cubic6">cubic6</option>
          <option value="lanczos2">lanczos2</option><option value="lanczos3">lanczos3</option></select></div>
        <div class="row"><label><input type="checkbox" data-key="optimal" data-testid="optimal" /> optimal keys</label>
          <label><input type="checkbox" data-key="fk" data-testid="fk" /> FK-aware</label></div>
        <div class="note">Optimal keys (down-sampling only): the key rotations that reconstruct the original best under linear playback; FK-aware also weighs global joint positions.</div>
      </fieldset>
      <fieldset>
        <legend><label><input type="checkbox" data-key="reduce" data-testid="reduce" /> Reduce keys</label></legend>
        <div class="row"><label>metric</label><select data-key="reduceMetric" data-testid="reduce-metric">
          <option value="object">object (3 cm shell)</option><option value="local">local (per channel)</option></select></div>
        <div class="row"><label>tolerance</label><input type="number" min="0.001" max="1000" step="any" data-key="toleranceMm" data-testid="tolerance-mm" style="width:70px" /> mm</div>
        <div class="row" data-when="local"><label>angle</label><input type="number" min="0.0001" max="90" step="any" data-key="toleranceDeg" data-testid="tolerance-deg" style="width:70px" /> °</div>
        <div class="note">The fewest keys a glTF player (slerp/lerp) evaluates within the tolerance at every frame. Object: points 3 cm from each joint, in object space (ACL's metric; 0.1 mm = ACL's 0.01 cm). Local: angle and translation per channel. BVH lengths taken as cm, glTF as m.</div>
      </fieldset>`;
    for (const el of host.querySelectorAll<HTMLInputElement | HTMLSelectElement>('[data-key]')) {
      const key = el.dataset.key as keyof ProcessSettings;
      const v = this.settings[key];
      if (el instanceof HTMLInputElement && el.type === 'checkbox') el.checked = v as boolean;
      else el.value = String(v);
      el.addEventListener('input', () => this.read());
      el.addEventListener('change', () => this.read());
    }
    this.showValues();
  }

  private read(): void {
    const s = { ...this.settings } as Record<string, unknown>;
    for (const el of this.host.querySelectorAll<HTMLInputElement | HTMLSelectElement>('[data-key]')) {
      const key = el.dataset.key as string;
      if (el instanceof HTMLInputElement && el.type === 'checkbox') s[key] = el.checked;
      else if (el instanceof HTMLInputElement) {
        const n = Number(el.value);
        if (Number.isFinite(n) && n > 0) s[key] = n;
      } else s[key] = el.value;
    }
    const next = s as unknown as ProcessSettings;
    if (JSON.stringify(next) === JSON.stringify(this.settings)) return;
    this.settings = next;
    this.showValues();
    clearTimeout(this.timer);
    this.timer = window.setTimeout(() => this.onChange(this.settings), 120);
  }

  private showValues(): void {
    for (const el of this.host.querySelectorAll<HTMLElement>('[data-when="local"]'))
      el.style.display = this.settings.reduceMetric === 'local' ? '' : 'none';
    // gaussian and unsharp take sigma, a time (the same smoothing at any frame rate); the other kernels
    // are defined on frames and widened by a factor (scaleKernel)
    const k = this.settings.smoothKernel;
    const timed = k === 'gaussian' || k === 'unsharp';
    for (const el of this.host.querySelectorAll<HTMLElement>('[data-when="sigma"]'))
      el.style.display = timed ? '' : 'none';
    for (const el of this.host.querySelectorAll<HTMLElement>('[data-when="width"]'))
      el.style.display = timed ? 'none' : '';
    const o = this.host.querySelector('[data-out="sigma"]');
    if (o) o.textContent = `${this.settings.sigmaMs} ms`;
    const w = this.host.querySelector('[data-out="width"]');
    if (w) w.textContent = `${this.settings.sigma}`;
  }
}
