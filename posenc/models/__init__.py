"""Released models and what they do with positions: presets cited from their configs, and their mechanisms (numpy).

- :mod:`~posenc.models.presets`: the table (:func:`names`, :func:`get`, :class:`Model`, :class:`Positional`);
- :mod:`~posenc.models.rope`: a preset's θ'_i and cos/sin factor (:func:`rope_inv_freq`), the dimensions it turns
  (:func:`turning_dims`), DeepSeek-V3's decoupled RoPE (:func:`decoupled_rope`);
- :mod:`~posenc.models.attention`: Llama 4's query temperature (:func:`query_scale`), gpt-oss's sinks
  (:func:`attention_with_sinks`), the softmax's scale (:func:`softmax_scale`);
- :mod:`~posenc.models.windows`: which keys a query sees (:func:`attention_mask`) and how far stacked
  windows reach (:func:`receptive_field`);
- :mod:`~posenc.models.config`: a model from its ``config.json`` (:func:`from_config`), read safely by
  :mod:`~posenc.models.config_file` with each family's defaults (:mod:`~posenc.models.families`), and
  what is wrong with it (:func:`check`, :mod:`~posenc.models.check`; ``python -m posenc.models check``).

Every number is checked against transformers 5.23's own code for the same configuration (tests/models/).
"""

from posenc.models.attention import attention_temperature, attention_with_sinks, query_scale, softmax_scale
from posenc.models.check import Finding, check
from posenc.models.config import from_config
from posenc.models.presets import LAYER_TYPES, MODELS, Model, Positional, get, names
from posenc.models.rope import decoupled_rope, rope_inv_freq, turning_dims
from posenc.models.windows import attention_mask, layer_reach, receptive_field

__all__ = ["LAYER_TYPES", "MODELS", "Finding", "Model", "Positional", "attention_mask", "attention_temperature",
           "attention_with_sinks", "check", "decoupled_rope", "from_config", "get", "layer_reach", "names",
           "query_scale", "receptive_field", "rope_inv_freq", "softmax_scale", "turning_dims"]
