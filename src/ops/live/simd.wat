;; WebAssembly SIMD kernels of the live rotation filters: two joints per f64x2 instruction, the same
;; operations in the same order as the scalar loops in damper.ts and tangent.ts (WebAssembly has no fused
;; multiply-add and no reassociation, so each lane rounds exactly as the JavaScript does).
;;
;; Build: node scripts/build_simd.mjs (writes simd-bytes.ts; a test checks it equals a fresh build).
;;
;; Memory is the caller's (imported, fixed size). Joints come in pairs; a pair's quaternions are 8 doubles
;; (x0 y0 z0 w0 x1 y1 z1 w1, 64 bytes) and its velocities 6 (vx0 vy0 vz0 vx1 vy1 vz1, 48 bytes), so the
;; arrays keep the library's layout and are transposed to one value per lane in registers.
(module
  (import "env" "memory" (memory 1))

  ;; 1 when every quaternion of the sample at $in (pairs · 64 bytes) has 1e-200 < |g|² < 1e200
  ;; (|g|² summed as the scalar loops do), else 0. Reads only.
  (func $check (export "check") (param $in i32) (param $pairs i32) (result i32)
    (local $end i32) (local $ok v128) (local $A v128) (local $B v128) (local $C v128) (local $E v128)
    (local $gx v128) (local $gy v128) (local $gz v128) (local $gw v128) (local $n2 v128)
    (local.set $ok (v128.const i64x2 -1 -1))
    (local.set $end (i32.add (local.get $in) (i32.shl (local.get $pairs) (i32.const 6))))
    (block $done
      (loop $pair
        (br_if $done (i32.ge_u (local.get $in) (local.get $end)))
        (local.set $A (v128.load offset=0 (local.get $in)))
        (local.set $B (v128.load offset=16 (local.get $in)))
        (local.set $C (v128.load offset=32 (local.get $in)))
        (local.set $E (v128.load offset=48 (local.get $in)))
        (local.set $gx (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $A) (local.get $C)))
        (local.set $gy (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $A) (local.get $C)))
        (local.set $gz (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $B) (local.get $E)))
        (local.set $gw (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $B) (local.get $E)))
        (local.set $n2
          (f64x2.add
            (f64x2.add
              (f64x2.add (f64x2.mul (local.get $gx) (local.get $gx)) (f64x2.mul (local.get $gy) (local.get $gy)))
              (f64x2.mul (local.get $gz) (local.get $gz)))
            (f64x2.mul (local.get $gw) (local.get $gw))))
        (local.set $ok
          (v128.and (local.get $ok)
            (v128.and
              (f64x2.gt (local.get $n2) (v128.const f64x2 1e-200 1e-200))
              (f64x2.lt (local.get $n2) (v128.const f64x2 1e200 1e200)))))
        (local.set $in (i32.add (local.get $in) (i32.const 64)))
        (br $pair)))
    (i64x2.all_true (local.get $ok)))

  ;; One sample of the critically damped spring on rotations with the target held over the interval
  ;; (damper.ts: damperLogs and damperRotations with targetPath 'hold', no target velocity), in place:
  ;; value (at $val) and velocity (at $vel) advance towards the sample at $in over Δt, with
  ;; decay = e^(−yΔt), sdt the clamped Δt and ydt = y·sdt. Returns −1, changing nothing, when "check" fails.
  ;; Lanes beyond the polynomials' range (the logarithm's |r|/|w| ≥ 7/16, or the exponential's angle above π/4)
  ;; take full-range paths. A pair where an angle is beyond 1e5 rad or not finite is not stored: its index (i32)
  ;; is written at $flags and counted, and the caller finishes it with the scalar code. Returns the count.
  (func (export "damperHold") (param $in i32) (param $val i32) (param $vel i32) (param $flags i32)
    (param $scratch i32)
    (param $pairs i32) (param $decay f64) (param $y f64) (param $sdt f64) (param $ydt f64) (result i32)
    (local $p i32) (local $count i32)
    (local $D v128) (local $Y v128) (local $S v128) (local $YD v128)
    (local $A v128) (local $B v128) (local $C v128) (local $E v128)
    (local $gx v128) (local $gy v128) (local $gz v128) (local $gw v128)
    (local $xx v128) (local $xy v128) (local $xz v128) (local $xw v128) (local $nxw v128)
    (local $rx v128) (local $ry v128) (local $rz v128) (local $rw v128)
    (local $n2 v128) (local $s2 v128) (local $inv v128) (local $z v128) (local $z2 v128) (local $z4 v128)
    (local $k v128) (local $f v128) (local $ok v128)
    (local $vx v128) (local $vy v128) (local $vz v128) (local $jx v128) (local $jy v128) (local $jz v128)
    (local $t2 v128) (local $u2 v128) (local $u4 v128) (local $sc v128) (local $cw v128)
    (local $ox v128) (local $oy v128) (local $oz v128) (local $ow v128)
    (local $farLanes v128) (local $th v128) (local $nq v128) (local $r v128) (local $rr v128) (local $sr v128)
    (local $cr v128) (local $hq v128) (local $q v128) (local $odd v128) (local $negs v128) (local $negc v128)
    (local $Lsn v128) (local $Law v128) (local $Lbig v128) (local $Lx v128) (local $Lid0 v128) (local $Lid1 v128)
    (local $Lt v128) (local $Lz v128) (local $Lz2 v128) (local $Lz4 v128) (local $Lp v128) (local $La v128)
    (local $Lk v128) (local $Su2 v128) (local $Su4 v128) (local $Cu2 v128) (local $Cu4 v128) (local $Ls v128)
    (local $Lc v128)
    (local $in0 i32) (local $val0 i32) (local $vel0 i32) (local $i i32) (local $far i32) (local $sp i32)
    (local $c0 v128) (local $c1 v128) (local $c2 v128) (local $c3 v128) (local $c4 v128) (local $c5 v128) (local $c6 v128) (local $c7 v128)
    (local $c8 v128) (local $c9 v128) (local $c10 v128) (local $c11 v128) (local $c12 v128) (local $c13 v128) (local $c14 v128) (local $c15 v128)
    (local $c16 v128) (local $c17 v128) (local $c18 v128) (local $c19 v128) (local $c20 v128) (local $c21 v128) (local $c22 v128) (local $c23 v128)
    (local $c24 v128) (local $c25 v128) (local $c26 v128) (local $c27 v128)
    (local.set $D (f64x2.splat (local.get $decay)))
    (local.set $Y (f64x2.splat (local.get $y)))
    (local.set $S (f64x2.splat (local.get $sdt)))
    (local.set $YD (f64x2.splat (local.get $ydt)))
    ;; the first pass's constants, set once (a constant inside the loop is rebuilt at every use)
    (local.set $c0 (v128.const f64x2 0.19140625 0.19140625))
    (local.set $c1 (v128.const f64x2 1 1))
    (local.set $c2 (v128.const f64x2 2 2))
    (local.set $c3 (v128.const f64x2 0.3333333333333293 0.3333333333333293))
    (local.set $c4 (v128.const f64x2 0.19999999999876483 0.19999999999876483))
    (local.set $c5 (v128.const f64x2 0.14285714272503466 0.14285714272503466))
    (local.set $c6 (v128.const f64x2 0.11111110405462356 0.11111110405462356))
    (local.set $c7 (v128.const f64x2 0.09090887133436507 0.09090887133436507))
    (local.set $c8 (v128.const f64x2 0.0769187620504483 0.0769187620504483))
    (local.set $c9 (v128.const f64x2 0.06661073137387531 0.06661073137387531))
    (local.set $c10 (v128.const f64x2 0.058335701337905735 0.058335701337905735))
    (local.set $c11 (v128.const f64x2 0.049768779946159324 0.049768779946159324))
    (local.set $c12 (v128.const f64x2 0.036531572744216916 0.036531572744216916))
    (local.set $c13 (v128.const f64x2 0.016285820115365782 0.016285820115365782))
    (local.set $c14 (v128.const f64x2 0.5 0.5))
    (local.set $c15 (v128.const f64x2 0.6168502750680849 0.6168502750680849))
    (local.set $c16 (v128.const f64x2 -0.16666666666666632 -0.16666666666666632))
    (local.set $c17 (v128.const f64x2 0.00833333333332249 0.00833333333332249))
    (local.set $c18 (v128.const f64x2 -0.0001984126982985795 -0.0001984126982985795))
    (local.set $c19 (v128.const f64x2 0.0000027557313707070068 0.0000027557313707070068))
    (local.set $c20 (v128.const f64x2 -2.5050760253406863e-8 -2.5050760253406863e-8))
    (local.set $c21 (v128.const f64x2 1.58969099521155e-10 1.58969099521155e-10))
    (local.set $c22 (v128.const f64x2 0.0416666666666666 0.0416666666666666))
    (local.set $c23 (v128.const f64x2 0.001388888888887411 0.001388888888887411))
    (local.set $c24 (v128.const f64x2 0.00002480158728947673 0.00002480158728947673))
    (local.set $c25 (v128.const f64x2 2.7557314351390663e-7 2.7557314351390663e-7))
    (local.set $c26 (v128.const f64x2 2.087572321298175e-9 2.087572321298175e-9))
    (local.set $c27 (v128.const f64x2 1.1359647557788195e-11 1.1359647557788195e-11))
    ;; a sample with a zero or non-finite quaternion changes nothing
    (if (i32.eqz (call $check (local.get $in) (local.get $pairs))) (then (return (i32.const -1))))
    (local.set $in0 (local.get $in))
    (local.set $val0 (local.get $val))
    (local.set $vel0 (local.get $vel))
    ;; first pass, in two phases over the pairs (each phase's chain of dependent operations is half as long, so
    ;; the processor overlaps consecutive pairs): every pair by the polynomials; a pair with a lane beyond their
    ;; range is listed at $flags and left as it was
    ;; phase 1: the logarithm j₀ = 2·log(x ⊗ g⁻¹) and g, unit, in x's hemisphere
    (local.set $sp (local.get $scratch))
    (block $done
      (loop $pair
        (br_if $done (i32.ge_u (local.get $p) (local.get $pairs)))
        ;; the target g and the value x, one joint per lane
        (local.set $A (v128.load offset=0 (local.get $in)))
        (local.set $B (v128.load offset=16 (local.get $in)))
        (local.set $C (v128.load offset=32 (local.get $in)))
        (local.set $E (v128.load offset=48 (local.get $in)))
        (local.set $gx (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $A) (local.get $C)))
        (local.set $gy (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $A) (local.get $C)))
        (local.set $gz (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $B) (local.get $E)))
        (local.set $gw (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $B) (local.get $E)))
        (local.set $A (v128.load offset=0 (local.get $val)))
        (local.set $B (v128.load offset=16 (local.get $val)))
        (local.set $C (v128.load offset=32 (local.get $val)))
        (local.set $E (v128.load offset=48 (local.get $val)))
        (local.set $xx (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $A) (local.get $C)))
        (local.set $xy (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $A) (local.get $C)))
        (local.set $xz (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $B) (local.get $E)))
        (local.set $xw (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $B) (local.get $E)))
        (local.set $n2
          (f64x2.add
            (f64x2.add
              (f64x2.add (f64x2.mul (local.get $gx) (local.get $gx)) (f64x2.mul (local.get $gy) (local.get $gy)))
              (f64x2.mul (local.get $gz) (local.get $gz)))
            (f64x2.mul (local.get $gw) (local.get $gw))))
        ;; r = x ⊗ g⁻¹ (unnormalised)
        (local.set $nxw (f64x2.neg (local.get $xw)))
        (local.set $rx
          (f64x2.add
            (f64x2.sub
              (f64x2.add (f64x2.mul (local.get $nxw) (local.get $gx)) (f64x2.mul (local.get $xx) (local.get $gw)))
              (f64x2.mul (local.get $xy) (local.get $gz)))
            (f64x2.mul (local.get $xz) (local.get $gy))))
        (local.set $ry
          (f64x2.sub
            (f64x2.add
              (f64x2.add (f64x2.mul (local.get $nxw) (local.get $gy)) (f64x2.mul (local.get $xx) (local.get $gz)))
              (f64x2.mul (local.get $xy) (local.get $gw)))
            (f64x2.mul (local.get $xz) (local.get $gx))))
        (local.set $rz
          (f64x2.add
            (f64x2.add
              (f64x2.sub (f64x2.mul (local.get $nxw) (local.get $gz)) (f64x2.mul (local.get $xx) (local.get $gy)))
              (f64x2.mul (local.get $xy) (local.get $gx)))
            (f64x2.mul (local.get $xz) (local.get $gw))))
        (local.set $rw
          (f64x2.add
            (f64x2.add
              (f64x2.add (f64x2.mul (local.get $xw) (local.get $gw)) (f64x2.mul (local.get $xx) (local.get $gx)))
              (f64x2.mul (local.get $xy) (local.get $gy)))
            (f64x2.mul (local.get $xz) (local.get $gz))))
        (local.set $s2
          (f64x2.add
            (f64x2.add (f64x2.mul (local.get $rx) (local.get $rx)) (f64x2.mul (local.get $ry) (local.get $ry)))
            (f64x2.mul (local.get $rz) (local.get $rz))))
        ;; logScale: fdlibm's atan polynomial, valid while s2 < (7/16)²·w²
        (local.set $ok
          (f64x2.lt (local.get $s2)
            (f64x2.mul (f64x2.mul (local.get $c0) (local.get $rw)) (local.get $rw))))
        (local.set $inv (f64x2.div (local.get $c1) (local.get $rw)))
        (local.set $z (f64x2.mul (f64x2.mul (local.get $s2) (local.get $inv)) (local.get $inv)))
        (local.set $z2 (f64x2.mul (local.get $z) (local.get $z)))
        (local.set $z4 (f64x2.mul (local.get $z2) (local.get $z2)))
        (local.set $k
          (f64x2.mul
            (f64x2.mul (local.get $c2)
              (f64x2.sub (local.get $c1)
                (f64x2.mul (local.get $z)
                  (f64x2.add
                    (f64x2.add
                      ;; f0
                      (f64x2.add
                        (f64x2.sub (local.get $c3)
                          (f64x2.mul (local.get $c4) (local.get $z)))
                        (f64x2.mul
                          (f64x2.sub (local.get $c5)
                            (f64x2.mul (local.get $c6) (local.get $z)))
                          (local.get $z2)))
                      ;; f1 · z4
                      (f64x2.mul
                        (f64x2.add
                          (f64x2.sub (local.get $c7)
                            (f64x2.mul (local.get $c8) (local.get $z)))
                          (f64x2.mul
                            (f64x2.sub (local.get $c9)
                              (f64x2.mul (local.get $c10) (local.get $z)))
                            (local.get $z2)))
                        (local.get $z4)))
                    ;; f2 · z8
                    (f64x2.mul
                      (f64x2.add
                        (f64x2.sub (local.get $c11)
                          (f64x2.mul (local.get $c12) (local.get $z)))
                        (f64x2.mul (local.get $c13) (local.get $z2)))
                      (f64x2.mul (local.get $z4) (local.get $z4)))))))
            (local.get $inv)))
        ;; g, unit, in x's hemisphere: f = ±1/|g| with the sign of w (damper.ts takes it from k, which has it)
        (local.set $f (f64x2.div (local.get $c1) (f64x2.sqrt (local.get $n2))))
        (local.set $f
          (v128.bitselect (f64x2.neg (local.get $f)) (local.get $f) (f64x2.lt (local.get $rw) (v128.const f64x2 0 0))))
        (local.set $gx (f64x2.mul (local.get $gx) (local.get $f)))
        (local.set $gy (f64x2.mul (local.get $gy) (local.get $f)))
        (local.set $gz (f64x2.mul (local.get $gz) (local.get $f)))
        (local.set $gw (f64x2.mul (local.get $gw) (local.get $f)))
        ;; j₀ = k·r (reusing r); the spring over Δt: j₁ = v + y·j₀, v ← e^(−yΔt)·(v − y·j₁Δt),
        ;; j ← e^(−yΔt)·(j₀ + j₁Δt)
        (local.set $rx (f64x2.mul (local.get $k) (local.get $rx)))
        (local.set $ry (f64x2.mul (local.get $k) (local.get $ry)))
        (local.set $rz (f64x2.mul (local.get $k) (local.get $rz)))
        ;; to the second phase: j₀, g (unit, in x's hemisphere) and the lanes' range mask, 128 bytes per pair
        (v128.store offset=0 (local.get $sp) (local.get $rx))
        (v128.store offset=16 (local.get $sp) (local.get $ry))
        (v128.store offset=32 (local.get $sp) (local.get $rz))
        (v128.store offset=48 (local.get $sp) (local.get $gx))
        (v128.store offset=64 (local.get $sp) (local.get $gy))
        (v128.store offset=80 (local.get $sp) (local.get $gz))
        (v128.store offset=96 (local.get $sp) (local.get $gw))
        (v128.store offset=112 (local.get $sp) (local.get $ok))
        (local.set $in (i32.add (local.get $in) (i32.const 64)))
        (local.set $val (i32.add (local.get $val) (i32.const 64)))
        (local.set $sp (i32.add (local.get $sp) (i32.const 128)))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $pair)))
    ;; phase 2: the spring over Δt and x = exp(j/2) ⊗ g
    (local.set $p (i32.const 0))
    (local.set $sp (local.get $scratch))
    (local.set $val (local.get $val0))
    (block $done
      (loop $pair
        (br_if $done (i32.ge_u (local.get $p) (local.get $pairs)))
        (local.set $rx (v128.load offset=0 (local.get $sp)))
        (local.set $ry (v128.load offset=16 (local.get $sp)))
        (local.set $rz (v128.load offset=32 (local.get $sp)))
        (local.set $gx (v128.load offset=48 (local.get $sp)))
        (local.set $gy (v128.load offset=64 (local.get $sp)))
        (local.set $gz (v128.load offset=80 (local.get $sp)))
        (local.set $gw (v128.load offset=96 (local.get $sp)))
        (local.set $ok (v128.load offset=112 (local.get $sp)))
        (local.set $A (v128.load offset=0 (local.get $vel)))
        (local.set $B (v128.load offset=16 (local.get $vel)))
        (local.set $C (v128.load offset=32 (local.get $vel)))
        (local.set $vx (i8x16.shuffle 0 1 2 3 4 5 6 7 24 25 26 27 28 29 30 31 (local.get $A) (local.get $B)))
        (local.set $vy (i8x16.shuffle 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 (local.get $A) (local.get $C)))
        (local.set $vz (i8x16.shuffle 0 1 2 3 4 5 6 7 24 25 26 27 28 29 30 31 (local.get $B) (local.get $C)))
        ;; j₁ (in j)
        (local.set $jx (f64x2.add (local.get $vx) (f64x2.mul (local.get $rx) (local.get $Y))))
        (local.set $jy (f64x2.add (local.get $vy) (f64x2.mul (local.get $ry) (local.get $Y))))
        (local.set $jz (f64x2.add (local.get $vz) (f64x2.mul (local.get $rz) (local.get $Y))))
        (local.set $vx (f64x2.mul (local.get $D) (f64x2.sub (local.get $vx) (f64x2.mul (local.get $jx) (local.get $YD)))))
        (local.set $vy (f64x2.mul (local.get $D) (f64x2.sub (local.get $vy) (f64x2.mul (local.get $jy) (local.get $YD)))))
        (local.set $vz (f64x2.mul (local.get $D) (f64x2.sub (local.get $vz) (f64x2.mul (local.get $jz) (local.get $YD)))))
        ;; h = j/2
        (local.set $jx
          (f64x2.mul (local.get $c14)
            (f64x2.mul (local.get $D) (f64x2.add (local.get $rx) (f64x2.mul (local.get $jx) (local.get $S))))))
        (local.set $jy
          (f64x2.mul (local.get $c14)
            (f64x2.mul (local.get $D) (f64x2.add (local.get $ry) (f64x2.mul (local.get $jy) (local.get $S))))))
        (local.set $jz
          (f64x2.mul (local.get $c14)
            (f64x2.mul (local.get $D) (f64x2.add (local.get $rz) (f64x2.mul (local.get $jz) (local.get $S))))))
        (local.set $t2
          (f64x2.add
            (f64x2.add (f64x2.mul (local.get $jx) (local.get $jx)) (f64x2.mul (local.get $jy) (local.get $jy)))
            (f64x2.mul (local.get $jz) (local.get $jz))))
        ;; sinc and cosOfSquare: fdlibm's polynomials, valid for angles up to π/4
        (local.set $ok
          (v128.and (local.get $ok)
            (f64x2.le (local.get $t2) (local.get $c15))))
        (local.set $u2 (f64x2.mul (local.get $t2) (local.get $t2)))
        (local.set $u4 (f64x2.mul (local.get $u2) (local.get $u2)))
        (local.set $sc
          (f64x2.add (local.get $c1)
            (f64x2.mul (local.get $t2)
              (f64x2.add
                (f64x2.add
                  (f64x2.add (local.get $c16)
                    (f64x2.mul (local.get $c17) (local.get $t2)))
                  (f64x2.mul
                    (f64x2.add (local.get $c18)
                      (f64x2.mul (local.get $c19) (local.get $t2)))
                    (local.get $u2)))
                (f64x2.mul
                  (f64x2.add (local.get $c20)
                    (f64x2.mul (local.get $c21) (local.get $t2)))
                  (local.get $u4))))))
        (local.set $cw
          (f64x2.sub (local.get $c1)
            (f64x2.sub (f64x2.mul (local.get $c14) (local.get $t2))
              (f64x2.mul (local.get $t2)
                (f64x2.mul (local.get $t2)
                  (f64x2.add
                    (f64x2.add
                      (f64x2.sub (local.get $c22)
                        (f64x2.mul (local.get $c23) (local.get $t2)))
                      (f64x2.mul
                        (f64x2.sub (local.get $c24)
                          (f64x2.mul (local.get $c25) (local.get $t2)))
                        (local.get $u2)))
                    (f64x2.mul
                      (f64x2.sub (local.get $c26)
                        (f64x2.mul (local.get $c27) (local.get $t2)))
                      (local.get $u4))))))))
        ;; x = exp(h) ⊗ g
        (local.set $jx (f64x2.mul (local.get $sc) (local.get $jx)))
        (local.set $jy (f64x2.mul (local.get $sc) (local.get $jy)))
        (local.set $jz (f64x2.mul (local.get $sc) (local.get $jz)))
        (local.set $ox
          (f64x2.sub
            (f64x2.add
              (f64x2.add (f64x2.mul (local.get $cw) (local.get $gx)) (f64x2.mul (local.get $jx) (local.get $gw)))
              (f64x2.mul (local.get $jy) (local.get $gz)))
            (f64x2.mul (local.get $jz) (local.get $gy))))
        (local.set $oy
          (f64x2.add
            (f64x2.add
              (f64x2.sub (f64x2.mul (local.get $cw) (local.get $gy)) (f64x2.mul (local.get $jx) (local.get $gz)))
              (f64x2.mul (local.get $jy) (local.get $gw)))
            (f64x2.mul (local.get $jz) (local.get $gx))))
        (local.set $oz
          (f64x2.add
            (f64x2.sub
              (f64x2.add (f64x2.mul (local.get $cw) (local.get $gz)) (f64x2.mul (local.get $jx) (local.get $gy)))
              (f64x2.mul (local.get $jy) (local.get $gx)))
            (f64x2.mul (local.get $jz) (local.get $gw))))
        (local.set $ow
          (f64x2.sub
            (f64x2.sub
              (f64x2.sub (f64x2.mul (local.get $cw) (local.get $gw)) (f64x2.mul (local.get $jx) (local.get $gx)))
              (f64x2.mul (local.get $jy) (local.get $gy)))
            (f64x2.mul (local.get $jz) (local.get $gz))))
        (if (i64x2.all_true (local.get $ok))
          (then
            (v128.store offset=0 (local.get $val)
              (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $ox) (local.get $oy)))
            (v128.store offset=16 (local.get $val)
              (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $oz) (local.get $ow)))
            (v128.store offset=32 (local.get $val)
              (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $ox) (local.get $oy)))
            (v128.store offset=48 (local.get $val)
              (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $oz) (local.get $ow)))
            (v128.store offset=0 (local.get $vel)
              (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $vx) (local.get $vy)))
            (v128.store offset=16 (local.get $vel)
              (i8x16.shuffle 0 1 2 3 4 5 6 7 24 25 26 27 28 29 30 31 (local.get $vz) (local.get $vx)))
            (v128.store offset=32 (local.get $vel)
              (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $vy) (local.get $vz))))
          (else
            (i32.store (i32.add (local.get $flags) (i32.shl (local.get $count) (i32.const 2))) (local.get $p))
            (local.set $count (i32.add (local.get $count) (i32.const 1)))))
        (local.set $sp (i32.add (local.get $sp) (i32.const 128)))
        (local.set $val (i32.add (local.get $val) (i32.const 64)))
        (local.set $vel (i32.add (local.get $vel) (i32.const 48)))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $pair)))

    ;; second pass over the listed pairs (still as they were), in the same two phases, with full-range paths for
    ;; the lanes that need them: the code of the first pass apart from the blocks marked "lanes beyond"; pairs
    ;; still not stored are listed again, from the start of $flags
    ;; phase 1: j₀ again for the lanes whose logarithm was beyond the polynomial (g is right already)
    (block $done
      (loop $pair
        (br_if $done (i32.ge_u (local.get $i) (local.get $count)))
        (local.set $p (i32.load (i32.add (local.get $flags) (i32.shl (local.get $i) (i32.const 2)))))
        (local.set $in (i32.add (local.get $in0) (i32.shl (local.get $p) (i32.const 6))))
        (local.set $val (i32.add (local.get $val0) (i32.shl (local.get $p) (i32.const 6))))
        (local.set $sp (i32.add (local.get $scratch) (i32.shl (local.get $p) (i32.const 7))))
        (local.set $ok (v128.load offset=112 (local.get $sp)))
        (if (i32.eqz (i64x2.all_true (local.get $ok)))
          (then
            ;; the target g and the value x, one joint per lane
            (local.set $A (v128.load offset=0 (local.get $in)))
            (local.set $B (v128.load offset=16 (local.get $in)))
            (local.set $C (v128.load offset=32 (local.get $in)))
            (local.set $E (v128.load offset=48 (local.get $in)))
            (local.set $gx (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $A) (local.get $C)))
            (local.set $gy (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $A) (local.get $C)))
            (local.set $gz (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $B) (local.get $E)))
            (local.set $gw (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $B) (local.get $E)))
            (local.set $A (v128.load offset=0 (local.get $val)))
            (local.set $B (v128.load offset=16 (local.get $val)))
            (local.set $C (v128.load offset=32 (local.get $val)))
            (local.set $E (v128.load offset=48 (local.get $val)))
            (local.set $xx (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $A) (local.get $C)))
            (local.set $xy (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $A) (local.get $C)))
            (local.set $xz (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $B) (local.get $E)))
            (local.set $xw (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $B) (local.get $E)))

            ;; r = x ⊗ g⁻¹ (unnormalised)
            (local.set $nxw (f64x2.neg (local.get $xw)))
            (local.set $rx
              (f64x2.add
                (f64x2.sub
                  (f64x2.add (f64x2.mul (local.get $nxw) (local.get $gx)) (f64x2.mul (local.get $xx) (local.get $gw)))
                  (f64x2.mul (local.get $xy) (local.get $gz)))
                (f64x2.mul (local.get $xz) (local.get $gy))))
            (local.set $ry
              (f64x2.sub
                (f64x2.add
                  (f64x2.add (f64x2.mul (local.get $nxw) (local.get $gy)) (f64x2.mul (local.get $xx) (local.get $gz)))
                  (f64x2.mul (local.get $xy) (local.get $gw)))
                (f64x2.mul (local.get $xz) (local.get $gx))))
            (local.set $rz
              (f64x2.add
                (f64x2.add
                  (f64x2.sub (f64x2.mul (local.get $nxw) (local.get $gz)) (f64x2.mul (local.get $xx) (local.get $gy)))
                  (f64x2.mul (local.get $xy) (local.get $gx)))
                (f64x2.mul (local.get $xz) (local.get $gw))))
            (local.set $rw
              (f64x2.add
                (f64x2.add
                  (f64x2.add (f64x2.mul (local.get $xw) (local.get $gw)) (f64x2.mul (local.get $xx) (local.get $gx)))
                  (f64x2.mul (local.get $xy) (local.get $gy)))
                (f64x2.mul (local.get $xz) (local.get $gz))))
            (local.set $s2
              (f64x2.add
                (f64x2.add (f64x2.mul (local.get $rx) (local.get $rx)) (f64x2.mul (local.get $ry) (local.get $ry)))
                (f64x2.mul (local.get $rz) (local.get $rz))))
            ;; lanes beyond the polynomial's range take the full-range logarithm
            ;; logScale over the whole range: 2·atan2(√s2, |w|)/√s2 with the sign of w, the arctangent by fdlibm's
            ;; s_atan.c on the ratio of the smaller to the larger of √s2 and |w| (reduced by atan(1/2) or atan(1)
            ;; above 7/16, 11/16), and π/2 − atan for √s2 > |w|; s2 > 0 (x and g are not zero)
            (local.set $Lsn (f64x2.sqrt (local.get $s2)))
            (local.set $Law (f64x2.abs (local.get $rw)))
            (local.set $Lbig (f64x2.gt (local.get $Lsn) (local.get $Law)))
            ;; with a ≤ b the smaller and larger of √s2 and |w|: t = (a − c·b)/(b + c·a), the argument reduced by
            ;; atan(c) for c = 0, 1/2, 1 (a/b below 7/16, below 11/16, else), in one division
            (local.set $La (v128.bitselect (local.get $Law) (local.get $Lsn) (local.get $Lbig)))
            (local.set $Lx (v128.bitselect (local.get $Lsn) (local.get $Law) (local.get $Lbig)))
            (local.set $Lid0
              (f64x2.ge (local.get $La) (f64x2.mul (v128.const f64x2 0.4375 0.4375) (local.get $Lx))))
            (local.set $Lid1
              (f64x2.ge (local.get $La) (f64x2.mul (v128.const f64x2 0.6875 0.6875) (local.get $Lx))))
            (local.set $Lz
              (v128.bitselect (v128.const f64x2 1 1)
                (v128.and (local.get $Lid0) (v128.const f64x2 0.5 0.5)) (local.get $Lid1)))
            (local.set $Lt
              (f64x2.div
                (f64x2.sub (local.get $La) (f64x2.mul (local.get $Lz) (local.get $Lx)))
                (f64x2.add (local.get $Lx) (f64x2.mul (local.get $Lz) (local.get $La)))))
            (local.set $Lz (f64x2.mul (local.get $Lt) (local.get $Lt)))
            (local.set $Lz2 (f64x2.mul (local.get $Lz) (local.get $Lz)))
            (local.set $Lz4 (f64x2.mul (local.get $Lz2) (local.get $Lz2)))
            ;; p = t·(s1 + s2) of s_atan.c, its polynomial in the grouping of logScale
            (local.set $Lp
              (f64x2.mul (local.get $Lt)
                (f64x2.mul (local.get $Lz)
                  (f64x2.add
                    (f64x2.add
                      (f64x2.add
                        (f64x2.sub (v128.const f64x2 0.3333333333333293 0.3333333333333293)
                          (f64x2.mul (v128.const f64x2 0.19999999999876483 0.19999999999876483) (local.get $Lz)))
                        (f64x2.mul
                          (f64x2.sub (v128.const f64x2 0.14285714272503466 0.14285714272503466)
                            (f64x2.mul (v128.const f64x2 0.11111110405462356 0.11111110405462356) (local.get $Lz)))
                          (local.get $Lz2)))
                      (f64x2.mul
                        (f64x2.add
                          (f64x2.sub (v128.const f64x2 0.09090887133436507 0.09090887133436507)
                            (f64x2.mul (v128.const f64x2 0.0769187620504483 0.0769187620504483) (local.get $Lz)))
                          (f64x2.mul
                            (f64x2.sub (v128.const f64x2 0.06661073137387531 0.06661073137387531)
                              (f64x2.mul (v128.const f64x2 0.058335701337905735 0.058335701337905735) (local.get $Lz)))
                            (local.get $Lz2)))
                        (local.get $Lz4)))
                    (f64x2.mul
                      (f64x2.add
                        (f64x2.sub (v128.const f64x2 0.049768779946159324 0.049768779946159324)
                          (f64x2.mul (v128.const f64x2 0.036531572744216916 0.036531572744216916) (local.get $Lz)))
                        (f64x2.mul (v128.const f64x2 0.016285820115365782 0.016285820115365782) (local.get $Lz2)))
                      (f64x2.mul (local.get $Lz4) (local.get $Lz4)))))))
            ;; atan(a/b): t − p below 7/16, else atanhi − ((p − atanlo) − t) with atan(1/2) or atan(1) in two parts
            (local.set $La
              (v128.bitselect
                (f64x2.sub
                  (v128.bitselect (v128.const f64x2 0.7853981633974483 0.7853981633974483)
                    (v128.const f64x2 0.4636476090008061 0.4636476090008061) (local.get $Lid1))
                  (f64x2.sub
                    (f64x2.sub (local.get $Lp)
                      (v128.bitselect (v128.const f64x2 3.061616997868383e-17 3.061616997868383e-17)
                        (v128.const f64x2 2.2698777452961687e-17 2.2698777452961687e-17) (local.get $Lid1)))
                    (local.get $Lt)))
                (f64x2.sub (local.get $Lt) (local.get $Lp))
                (local.get $Lid0)))
            ;; atan2(√s2, |w|) = π/2 − atan(|w|/√s2) when √s2 > |w|
            (local.set $La
              (v128.bitselect
                (f64x2.sub (v128.const f64x2 1.5707963267948966 1.5707963267948966)
                  (f64x2.sub (local.get $La) (v128.const f64x2 6.123233995736766e-17 6.123233995736766e-17)))
                (local.get $La)
                (local.get $Lbig)))
            (local.set $Lk (f64x2.div (f64x2.mul (v128.const f64x2 2 2) (local.get $La)) (local.get $Lsn)))
            (local.set $Lk (v128.bitselect (f64x2.neg (local.get $Lk)) (local.get $Lk) (f64x2.lt (local.get $rw) (v128.const f64x2 0 0))))
            (v128.store offset=0 (local.get $sp)
              (v128.bitselect (v128.load offset=0 (local.get $sp)) (f64x2.mul (local.get $Lk) (local.get $rx)) (local.get $ok)))
            (v128.store offset=16 (local.get $sp)
              (v128.bitselect (v128.load offset=16 (local.get $sp)) (f64x2.mul (local.get $Lk) (local.get $ry)) (local.get $ok)))
            (v128.store offset=32 (local.get $sp)
              (v128.bitselect (v128.load offset=32 (local.get $sp)) (f64x2.mul (local.get $Lk) (local.get $rz)) (local.get $ok)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $pair)))
    ;; phase 2: the spring and the exponential, full range
    (local.set $i (i32.const 0))
    (block $done
      (loop $pair
        (br_if $done (i32.ge_u (local.get $i) (local.get $count)))
        (local.set $p (i32.load (i32.add (local.get $flags) (i32.shl (local.get $i) (i32.const 2)))))
        (local.set $val (i32.add (local.get $val0) (i32.shl (local.get $p) (i32.const 6))))
        (local.set $vel (i32.add (local.get $vel0) (i32.mul (local.get $p) (i32.const 48))))
        (local.set $sp (i32.add (local.get $scratch) (i32.shl (local.get $p) (i32.const 7))))
        (local.set $rx (v128.load offset=0 (local.get $sp)))
        (local.set $ry (v128.load offset=16 (local.get $sp)))
        (local.set $rz (v128.load offset=32 (local.get $sp)))
        (local.set $gx (v128.load offset=48 (local.get $sp)))
        (local.set $gy (v128.load offset=64 (local.get $sp)))
        (local.set $gz (v128.load offset=80 (local.get $sp)))
        (local.set $gw (v128.load offset=96 (local.get $sp)))
        (local.set $A (v128.load offset=0 (local.get $vel)))
        (local.set $B (v128.load offset=16 (local.get $vel)))
        (local.set $C (v128.load offset=32 (local.get $vel)))
        (local.set $vx (i8x16.shuffle 0 1 2 3 4 5 6 7 24 25 26 27 28 29 30 31 (local.get $A) (local.get $B)))
        (local.set $vy (i8x16.shuffle 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 (local.get $A) (local.get $C)))
        (local.set $vz (i8x16.shuffle 0 1 2 3 4 5 6 7 24 25 26 27 28 29 30 31 (local.get $B) (local.get $C)))
        ;; j₁ (in j)
        (local.set $jx (f64x2.add (local.get $vx) (f64x2.mul (local.get $rx) (local.get $Y))))
        (local.set $jy (f64x2.add (local.get $vy) (f64x2.mul (local.get $ry) (local.get $Y))))
        (local.set $jz (f64x2.add (local.get $vz) (f64x2.mul (local.get $rz) (local.get $Y))))
        (local.set $vx (f64x2.mul (local.get $D) (f64x2.sub (local.get $vx) (f64x2.mul (local.get $jx) (local.get $YD)))))
        (local.set $vy (f64x2.mul (local.get $D) (f64x2.sub (local.get $vy) (f64x2.mul (local.get $jy) (local.get $YD)))))
        (local.set $vz (f64x2.mul (local.get $D) (f64x2.sub (local.get $vz) (f64x2.mul (local.get $jz) (local.get $YD)))))
        ;; h = j/2
        (local.set $jx
          (f64x2.mul (v128.const f64x2 0.5 0.5)
            (f64x2.mul (local.get $D) (f64x2.add (local.get $rx) (f64x2.mul (local.get $jx) (local.get $S))))))
        (local.set $jy
          (f64x2.mul (v128.const f64x2 0.5 0.5)
            (f64x2.mul (local.get $D) (f64x2.add (local.get $ry) (f64x2.mul (local.get $jy) (local.get $S))))))
        (local.set $jz
          (f64x2.mul (v128.const f64x2 0.5 0.5)
            (f64x2.mul (local.get $D) (f64x2.add (local.get $rz) (f64x2.mul (local.get $jz) (local.get $S))))))
        (local.set $t2
          (f64x2.add
            (f64x2.add (f64x2.mul (local.get $jx) (local.get $jx)) (f64x2.mul (local.get $jy) (local.get $jy)))
            (f64x2.mul (local.get $jz) (local.get $jz))))
        ;; sinc and cosOfSquare: fdlibm's polynomials, valid for angles up to π/4
        (local.set $ok (f64x2.le (local.get $t2) (v128.const f64x2 0.6168502750680849 0.6168502750680849)))
        (local.set $u2 (f64x2.mul (local.get $t2) (local.get $t2)))
        (local.set $u4 (f64x2.mul (local.get $u2) (local.get $u2)))
        (local.set $sc
          (f64x2.add (v128.const f64x2 1 1)
            (f64x2.mul (local.get $t2)
              (f64x2.add
                (f64x2.add
                  (f64x2.add (v128.const f64x2 -0.16666666666666632 -0.16666666666666632)
                    (f64x2.mul (v128.const f64x2 0.00833333333332249 0.00833333333332249) (local.get $t2)))
                  (f64x2.mul
                    (f64x2.add (v128.const f64x2 -0.0001984126982985795 -0.0001984126982985795)
                      (f64x2.mul (v128.const f64x2 0.0000027557313707070068 0.0000027557313707070068) (local.get $t2)))
                    (local.get $u2)))
                (f64x2.mul
                  (f64x2.add (v128.const f64x2 -2.5050760253406863e-8 -2.5050760253406863e-8)
                    (f64x2.mul (v128.const f64x2 1.58969099521155e-10 1.58969099521155e-10) (local.get $t2)))
                  (local.get $u4))))))
        (local.set $cw
          (f64x2.sub (v128.const f64x2 1 1)
            (f64x2.sub (f64x2.mul (v128.const f64x2 0.5 0.5) (local.get $t2))
              (f64x2.mul (local.get $t2)
                (f64x2.mul (local.get $t2)
                  (f64x2.add
                    (f64x2.add
                      (f64x2.sub (v128.const f64x2 0.0416666666666666 0.0416666666666666)
                        (f64x2.mul (v128.const f64x2 0.001388888888887411 0.001388888888887411) (local.get $t2)))
                      (f64x2.mul
                        (f64x2.sub (v128.const f64x2 0.00002480158728947673 0.00002480158728947673)
                          (f64x2.mul (v128.const f64x2 2.7557314351390663e-7 2.7557314351390663e-7) (local.get $t2)))
                        (local.get $u2)))
                    (f64x2.mul
                      (f64x2.sub (v128.const f64x2 2.087572321298175e-9 2.087572321298175e-9)
                        (f64x2.mul (v128.const f64x2 1.1359647557788195e-11 1.1359647557788195e-11) (local.get $t2)))
                      (local.get $u4))))))))
        ;; lanes beyond π/4 reduce the angle by multiples of π/2 (angles beyond 1e5 rad, or not finite, are left
        ;; to the caller)
        (if (i32.eqz (i64x2.all_true (local.get $ok)))
          (then
            (local.set $farLanes (v128.not (f64x2.le (local.get $t2) (v128.const f64x2 1e10 1e10))))
            (local.set $th (f64x2.sqrt (local.get $t2)))
            (local.set $nq
              (f64x2.nearest (f64x2.mul (local.get $th) (v128.const f64x2 0.6366197723675814 0.6366197723675814))))
            ;; r = θ − n·π/2 with π/2 in two parts (fdlibm's pio2_1, pio2_1t: n·pio2_1 is exact)
            (local.set $r
              (f64x2.sub
                (f64x2.sub (local.get $th)
                  (f64x2.mul (local.get $nq) (v128.const f64x2 1.5707963267341256 1.5707963267341256)))
                (f64x2.mul (local.get $nq) (v128.const f64x2 6.077100506506192e-11 6.077100506506192e-11))))
            (local.set $rr (f64x2.mul (local.get $r) (local.get $r)))
            ;; sin(r) and cos(r) by the polynomials above
            (local.set $Su2 (f64x2.mul (local.get $rr) (local.get $rr)))
            (local.set $Su4 (f64x2.mul (local.get $Su2) (local.get $Su2)))
            (local.set $Ls (f64x2.add (v128.const f64x2 1 1)
              (f64x2.mul (local.get $rr)
                (f64x2.add
                  (f64x2.add
                    (f64x2.add (v128.const f64x2 -0.16666666666666632 -0.16666666666666632)
                      (f64x2.mul (v128.const f64x2 0.00833333333332249 0.00833333333332249) (local.get $rr)))
                    (f64x2.mul
                      (f64x2.add (v128.const f64x2 -0.0001984126982985795 -0.0001984126982985795)
                        (f64x2.mul (v128.const f64x2 0.0000027557313707070068 0.0000027557313707070068) (local.get $rr)))
                      (local.get $Su2)))
                  (f64x2.mul
                    (f64x2.add (v128.const f64x2 -2.5050760253406863e-8 -2.5050760253406863e-8)
                      (f64x2.mul (v128.const f64x2 1.58969099521155e-10 1.58969099521155e-10) (local.get $rr)))
                    (local.get $Su4))))))
            (local.set $Cu2 (f64x2.mul (local.get $rr) (local.get $rr)))
            (local.set $Cu4 (f64x2.mul (local.get $Cu2) (local.get $Cu2)))
            (local.set $Lc (f64x2.sub (v128.const f64x2 1 1)
              (f64x2.sub (f64x2.mul (v128.const f64x2 0.5 0.5) (local.get $rr))
                (f64x2.mul (local.get $rr)
                  (f64x2.mul (local.get $rr)
                    (f64x2.add
                      (f64x2.add
                        (f64x2.sub (v128.const f64x2 0.0416666666666666 0.0416666666666666)
                          (f64x2.mul (v128.const f64x2 0.001388888888887411 0.001388888888887411) (local.get $rr)))
                        (f64x2.mul
                          (f64x2.sub (v128.const f64x2 0.00002480158728947673 0.00002480158728947673)
                            (f64x2.mul (v128.const f64x2 2.7557314351390663e-7 2.7557314351390663e-7) (local.get $rr)))
                          (local.get $Cu2)))
                      (f64x2.mul
                        (f64x2.sub (v128.const f64x2 2.087572321298175e-9 2.087572321298175e-9)
                          (f64x2.mul (v128.const f64x2 1.1359647557788195e-11 1.1359647557788195e-11) (local.get $rr)))
                        (local.get $Cu4))))))))
            (local.set $sr (f64x2.mul (local.get $r) (local.get $Ls)))
            (local.set $cr (local.get $Lc))
            ;; the quadrant n mod 4: odd swaps sine and cosine; sine is negative in quadrants 2, 3, cosine in 1, 2
            (local.set $hq (f64x2.mul (local.get $nq) (v128.const f64x2 0.5 0.5)))
            (local.set $q (f64x2.floor (local.get $hq)))
            (local.set $odd (f64x2.ne (local.get $q) (local.get $hq)))
            (local.set $hq (f64x2.mul (local.get $q) (v128.const f64x2 0.5 0.5)))
            (local.set $negs (f64x2.ne (f64x2.floor (local.get $hq)) (local.get $hq)))
            (local.set $negc (v128.xor (local.get $odd) (local.get $negs)))
            (local.set $sc
              (v128.bitselect (local.get $sc)
                (f64x2.div
                  (v128.xor (v128.bitselect (local.get $cr) (local.get $sr) (local.get $odd))
                    (v128.and (local.get $negs) (v128.const i64x2 0x8000000000000000 0x8000000000000000)))
                  (local.get $th))
                (local.get $ok)))
            (local.set $cw
              (v128.bitselect (local.get $cw)
                (v128.xor (v128.bitselect (local.get $sr) (local.get $cr) (local.get $odd))
                  (v128.and (local.get $negc) (v128.const i64x2 0x8000000000000000 0x8000000000000000)))
                (local.get $ok)))
            (local.set $ok (v128.not (local.get $farLanes)))))
        ;; x = exp(h) ⊗ g
        (local.set $jx (f64x2.mul (local.get $sc) (local.get $jx)))
        (local.set $jy (f64x2.mul (local.get $sc) (local.get $jy)))
        (local.set $jz (f64x2.mul (local.get $sc) (local.get $jz)))
        (local.set $ox
          (f64x2.sub
            (f64x2.add
              (f64x2.add (f64x2.mul (local.get $cw) (local.get $gx)) (f64x2.mul (local.get $jx) (local.get $gw)))
              (f64x2.mul (local.get $jy) (local.get $gz)))
            (f64x2.mul (local.get $jz) (local.get $gy))))
        (local.set $oy
          (f64x2.add
            (f64x2.add
              (f64x2.sub (f64x2.mul (local.get $cw) (local.get $gy)) (f64x2.mul (local.get $jx) (local.get $gz)))
              (f64x2.mul (local.get $jy) (local.get $gw)))
            (f64x2.mul (local.get $jz) (local.get $gx))))
        (local.set $oz
          (f64x2.add
            (f64x2.sub
              (f64x2.add (f64x2.mul (local.get $cw) (local.get $gz)) (f64x2.mul (local.get $jx) (local.get $gy)))
              (f64x2.mul (local.get $jy) (local.get $gx)))
            (f64x2.mul (local.get $jz) (local.get $gw))))
        (local.set $ow
          (f64x2.sub
            (f64x2.sub
              (f64x2.sub (f64x2.mul (local.get $cw) (local.get $gw)) (f64x2.mul (local.get $jx) (local.get $gx)))
              (f64x2.mul (local.get $jy) (local.get $gy)))
            (f64x2.mul (local.get $jz) (local.get $gz))))
        (if (i64x2.all_true (local.get $ok))
          (then
            (v128.store offset=0 (local.get $val)
              (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $ox) (local.get $oy)))
            (v128.store offset=16 (local.get $val)
              (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $oz) (local.get $ow)))
            (v128.store offset=32 (local.get $val)
              (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $ox) (local.get $oy)))
            (v128.store offset=48 (local.get $val)
              (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $oz) (local.get $ow)))
            (v128.store offset=0 (local.get $vel)
              (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $vx) (local.get $vy)))
            (v128.store offset=16 (local.get $vel)
              (i8x16.shuffle 0 1 2 3 4 5 6 7 24 25 26 27 28 29 30 31 (local.get $vz) (local.get $vx)))
            (v128.store offset=32 (local.get $vel)
              (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $vy) (local.get $vz))))
          (else
            (i32.store (i32.add (local.get $flags) (i32.shl (local.get $far) (i32.const 2))) (local.get $p))
            (local.set $far (i32.add (local.get $far) (i32.const 1)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $pair)))
    (local.get $far))
)
