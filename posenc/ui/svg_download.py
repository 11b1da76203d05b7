"""Every chart downloads as SVG as well as PNG: a second button beside the tool bar's camera.

plotly's camera button (presenter.chart configures it: PNG at twice the chart's size, named after the
settings) saves one format, read from the chart's ``toImageButtonOptions`` when it is pressed; its
config is JSON here, so a button of our own cannot carry a click function. :data:`SCRIPT` adds, beside
every camera, a button "Download plot as SVG" that presses the camera with the format set to SVG (at
scale 1: a vector figure has no pixels to double) and then puts the PNG options back; the file gets the
same name, with .svg. plotly writes lines, markers, text and axes as SVG elements (a heatmap as an image
inside the SVG), so a slide or a paper gets a figure that scales and whose text can be edited.

The script runs once per tab (the page-wide script element of posenc/ui/accessibility.py carries it)
and adds the button again whenever plotly redraws a tool bar. Its text is a constant of this module:
nothing from the URL reaches it. The icon is Material Symbols' "polyline" (Apache License 2.0).
"""

from __future__ import annotations

TITLE = "Download plot as SVG"

SCRIPT = r"""<script>
(() => {
  if (window.posencSvgDownload) return;  // one observer per tab: st.html may run this again
  window.posencSvgDownload = true;
  const icon = () => {  // made with DOM calls: Streamlit's sanitizer drops a script whose text holds markup
    const ns = "http://www.w3.org/2000/svg", svg = document.createElementNS(ns, "svg"), path = document.createElementNS(ns, "path");
    for (const [name, value] of [["viewBox", "0 0 24 24"], ["class", "icon"], ["height", "1em"], ["width", "1em"]])
      svg.setAttribute(name, value);
    path.setAttribute("d", "M15 16v1.26l-6-3v-3.17L11.7 8H16V2h-6v4.9L7.3 10H3v6h5l7 3.5V22h6v-6z");
    svg.appendChild(path);
    return svg;
  };
  // A clone has no listener, so plotly does not paint its icon: it takes the tool bar's colours (layout.modebar,
  // set by posenc/ui/presenter.py) as plotly's own buttons do, the active one while hovered or focused.
  const paint = (button, on) => {
    const bar = button.closest(".js-plotly-plot")?._fullLayout?.modebar, path = button.querySelector("path");
    if (bar && path) path.style.fill = on ? bar.activecolor : bar.color;
  };
  const press = (camera, plot) => {
    const options = plot._context && plot._context.toImageButtonOptions;
    if (!options) return;
    const saved = Object.assign({}, options);
    Object.assign(options, {format: "svg", scale: 1});
    try { camera.click(); }  // plotly reads the options now, synchronously, and then downloads
    finally { for (const key of Object.keys(options)) delete options[key]; Object.assign(options, saved); }
  };
  const add = () => {
    for (const camera of document.querySelectorAll('.js-plotly-plot .modebar-btn[data-title="Download plot as a PNG"]')) {
      if (camera.parentNode.querySelector(".posenc-svg")) continue;
      const button = camera.cloneNode(false);  // plotly's look and tooltip; no listener comes with a clone
      button.classList.add("posenc-svg");
      button.setAttribute("data-title", "__TITLE__");
      button.setAttribute("aria-label", "__TITLE__");
      button.removeAttribute("data-val");
      button.appendChild(icon());
      button.addEventListener("click", (event) => {
        event.preventDefault();
        press(camera, button.closest(".js-plotly-plot"));
      });
      for (const [name, on] of [["mouseenter", true], ["focus", true], ["mouseleave", false], ["blur", false]])
        button.addEventListener(name, () => paint(button, on));
      camera.after(button);
      paint(button, false);
    }
  };
  let pending = false;
  new MutationObserver(() => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => { pending = false; add(); });
  }).observe(document.body, {childList: true, subtree: true});
  add();
})();
</script>""".replace("__TITLE__", TITLE)
