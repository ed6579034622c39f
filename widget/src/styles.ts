/**
 * The widget's stylesheet, scoped to its shadow root so the host page's CSS
 * cannot reach in and ours cannot leak out. Colours come from the theme's
 * custom properties; under 480 px wide the panel takes the whole screen.
 */

export const STYLES = `
:host{all:initial}
*{box-sizing:border-box}
.root{position:fixed;bottom:20px;right:20px;z-index:2147483000;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--pw-fg)}
.root.left{right:auto;left:20px}
button{font:inherit;cursor:pointer}
:focus-visible{outline:2px solid var(--pw-primary);outline-offset:2px}
.launcher{display:flex;align-items:center;gap:8px;margin-left:auto;border:0;border-radius:999px;padding:12px 18px;background:var(--pw-primary);color:var(--pw-on-primary);box-shadow:0 6px 24px rgba(0,0,0,.2);font-weight:600}
.left .launcher{margin-left:0}
.launcher svg{width:22px;height:22px;fill:currentColor}
.badge{min-width:20px;height:20px;padding:0 6px;border-radius:999px;background:#dc2626;color:#fff;font-size:12px;line-height:20px;text-align:center}
.badge[hidden]{display:none}
.launcher.tab{border-radius:8px 8px 0 0;padding:8px 14px}
.launcher.hidden{display:none}
.panel{position:absolute;bottom:64px;right:0;width:380px;height:min(640px,calc(100vh - 110px));display:flex;flex-direction:column;background:var(--pw-bg);border:1px solid var(--pw-border);border-radius:var(--pw-radius);box-shadow:0 12px 48px rgba(0,0,0,.22);overflow:hidden}
.left .panel{right:auto;left:0}
.panel[hidden],.proactive[hidden]{display:none}
.compact .panel{width:330px;height:min(500px,calc(100vh - 110px))}
.fullscreen .panel{position:fixed;inset:16px;width:auto;height:auto}
.header{display:flex;align-items:center;gap:10px;padding:14px 12px 14px 16px;background:var(--pw-header);color:var(--pw-on-header)}
.header img{width:36px;height:36px;border-radius:50%;object-fit:cover;background:#fff}
.heading{flex:1;min-width:0}
.title{font-weight:700;font-size:16px;margin:0}
.subtitle{font-size:12px;opacity:.85;margin:0}
.hbtn{display:inline-flex;border:0;background:transparent;color:inherit;padding:6px;border-radius:8px}
.hbtn:hover{background:rgba(255,255,255,.18)}
.hbtn svg{width:20px;height:20px;fill:none;stroke:currentColor;stroke-width:2;stroke-linecap:round;stroke-linejoin:round}
.hbtn[hidden]{display:none}
.log{flex:1;overflow-y:auto;padding:16px 14px;display:flex;flex-direction:column;gap:10px;overscroll-behavior:contain}
.msg{display:flex;gap:8px;align-items:flex-end;max-width:88%}
.msg img{width:26px;height:26px;border-radius:50%;object-fit:cover;flex:none}
.bubble{padding:9px 13px;border-radius:var(--pw-radius);background:var(--pw-surface);color:var(--pw-fg);white-space:pre-wrap;overflow-wrap:anywhere}
.bubble a{color:inherit;text-decoration:underline}
.msg.visitor{align-self:flex-end}
.msg.visitor .bubble{background:var(--pw-primary);color:var(--pw-on-primary)}
.msg.agent .bubble{border:1px solid var(--pw-primary)}
.who{display:block;font-size:11px;color:var(--pw-muted);margin-bottom:2px}
.msg.error .bubble{background:#fef2f2;color:#991b1b;border:1px solid #fecaca}
.note{align-self:center;text-align:center;font-size:12px;color:var(--pw-muted);max-width:90%}
.sources{margin:6px 0 0;padding:6px 0 0;border-top:1px solid var(--pw-border);font-size:12px;list-style:none}
.typing{display:inline-flex;gap:4px;padding:4px 0}
.typing i{width:6px;height:6px;border-radius:50%;background:var(--pw-muted);animation:pw-blink 1.2s infinite}
.typing i:nth-child(2){animation-delay:.2s}.typing i:nth-child(3){animation-delay:.4s}
@keyframes pw-blink{0%,80%,100%{opacity:.25}40%{opacity:1}}
.chips{display:flex;flex-wrap:wrap;gap:6px;padding:0 14px 10px}
.chip{border:1px solid var(--pw-primary);color:var(--pw-fg);background:var(--pw-bg);border-radius:999px;padding:6px 12px;font-size:13px}
.chip:hover{background:var(--pw-surface)}
.composer{display:flex;gap:8px;align-items:flex-end;padding:10px 12px;border-top:1px solid var(--pw-border);background:var(--pw-bg)}
.composer textarea:focus-visible{outline-offset:0}
.composer textarea{flex:1;resize:none;max-height:120px;min-height:40px;border:1px solid var(--pw-border);border-radius:10px;padding:9px 11px;font:inherit;color:var(--pw-fg);background:var(--pw-bg)}
.send{display:inline-flex;border:0;border-radius:10px;padding:10px;background:var(--pw-primary);color:var(--pw-on-primary)}
.send svg{width:20px;height:20px;fill:currentColor}
.send:disabled{opacity:.5;cursor:default}
.card{margin:4px 0;padding:14px;border:1px solid var(--pw-border);border-radius:var(--pw-radius);background:var(--pw-bg);display:flex;flex-direction:column;gap:8px}
.card p{margin:0}
.card label{display:flex;flex-direction:column;gap:3px;font-size:12px;color:var(--pw-muted)}
.card input,.card textarea{font:inherit;color:var(--pw-fg);background:var(--pw-bg);border:1px solid var(--pw-border);border-radius:8px;padding:8px}
.primary{border:0;border-radius:8px;padding:9px 12px;background:var(--pw-primary);color:var(--pw-on-primary);font-weight:600}
.stars{display:flex;gap:4px}
.star{border:1px solid var(--pw-border);background:var(--pw-bg);color:var(--pw-muted);border-radius:8px;width:38px;height:34px;font-size:18px}
.star[aria-pressed=true]{background:var(--pw-primary);color:var(--pw-on-primary);border-color:var(--pw-primary)}
.products{list-style:none;margin:0;padding:0;display:flex;flex-direction:column;gap:8px}
.product{display:flex;gap:10px;padding:10px;border:1px solid var(--pw-border);border-radius:var(--pw-radius);background:var(--pw-bg)}
.product img{width:64px;height:64px;border-radius:8px;object-fit:cover;flex:none}
.product p{margin:0 0 2px}
.pname{font-weight:600}
.stock{font-size:12px;color:var(--pw-muted)}
.stock.out{color:#b91c1c}
.product .primary{margin-top:4px;padding:6px 12px}
.proactive{position:absolute;bottom:64px;right:0;width:280px;background:var(--pw-bg);border:1px solid var(--pw-border);border-radius:var(--pw-radius);box-shadow:0 8px 30px rgba(0,0,0,.18)}
.teaser{display:block;width:100%;border:0;background:transparent;color:var(--pw-fg);padding:14px 36px 14px 14px;text-align:left;border-radius:var(--pw-radius);white-space:pre-wrap;overflow-wrap:anywhere}
.left .proactive{right:auto;left:0}
.proactive .hbtn{position:absolute;top:4px;right:4px;color:var(--pw-muted)}
.consent .row{display:flex;gap:8px}
.consent .fine{font-size:12px;color:var(--pw-muted)}
.ghost{border:1px solid var(--pw-border);border-radius:8px;padding:9px 12px;background:var(--pw-bg);color:var(--pw-fg)}
.sharebar{position:fixed;top:12px;left:50%;transform:translateX(-50%);display:flex;align-items:center;gap:8px;width:max-content;padding:6px 6px 6px 12px;border-radius:999px;background:#111827;color:#fff;font-size:13px;box-shadow:0 6px 24px rgba(0,0,0,.2)}
.sharebar[hidden]{display:none}
.sharebar .dot{width:8px;height:8px;border-radius:50%;background:#ef4444}
.stopshare{border:0;border-radius:999px;padding:4px 10px;background:#fff;color:#111827;font-weight:600}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.brand{text-align:center;font-size:11px;color:var(--pw-muted);padding:0 0 6px}
@media (max-width:480px){.root{bottom:12px;right:12px}.root.left{left:12px}.panel,.compact .panel,.fullscreen .panel{position:fixed;inset:0;width:100%;height:100%;border-radius:0;border:0}.proactive{width:min(280px,calc(100vw - 24px))}}
@media (prefers-reduced-motion:reduce){.typing i{animation:none}}
`;
