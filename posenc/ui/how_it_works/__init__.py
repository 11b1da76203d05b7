"""How it works: each scheme's own view, one module per family (absolute, bias, rotary; images for 2-D RoPE).

A view takes the sidebar's controls and draws under the page's formula; the page finds it in
:data:`posenc.ui.scheme_views.SCHEME_VIEWS` by the scheme's key.
"""
