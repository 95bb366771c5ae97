"""Sphinx configuration of the workshop site. Build it with `attention-by-hand build`."""

project = "LLM Self-Attention by Hand"
author = "the workshop's authors"
copyright = "2026, " + author

extensions = ["myst_parser", "attention_by_hand.site.sphinxext"]
myst_enable_extensions = ["dollarmath", "colon_fence", "attrs_inline"]
myst_heading_anchors = 3

# Where the run's outputs are, relative to this folder (`attention-by-hand build` sets it with -D abh_captures=<folder>).
abh_captures = "../captures"

# Only the pages; the fonts folder's README is a licence note, not a page.
exclude_patterns = ["_static/**", "README.md"]

html_theme = "furo"
html_title = project
html_static_path = ["_static"]
# A favicon of our own: without one every browser asks for /favicon.ico and logs a 404.
html_favicon = "_static/favicon.svg"
html_css_files = ["workshop.css"]
html_js_files = ["workshop.js"]
html_math_renderer = "mathml"
html_copy_source = False
html_show_sourcelink = False
html_last_updated_fmt = None
# Deterministic output: no build dates, no random ids.
html_theme_options = {"navigation_with_keys": True}
pygments_style = "a11y-light"
pygments_dark_style = "a11y-dark"
# Quotes stay as typed: hints, commands and values carry code ("float('-inf')"), and a curly
# quote copied from the page into Python is a syntax error.
smartquotes = False
