"""The table's one TOML file, validated by pydantic: every problem named by file, key, reason.

Unknown keys are errors (a typo must not silently fall back to a default). Collection schedules
(R4) come from a schedules file shipped as data, chosen by option number, or are written inline.
This package's face is what the daemon, the commands, scripts and tests use; each job is in its
own module: the sections' models (`sections`), reading and validating (`loading`), the reasons
a technician reads (`problems`, `error_reasons`), the devices (`device_checks`, `ports`), the
data files (`data_files`) and the journal's paths (`journal_paths`).
"""

from tablectl.config.error_reasons import GAME_IDS
from tablectl.config.journal_paths import checked_paths, path_problems, path_warnings
from tablectl.config.loaded import LoadedConfig, resolve, tls_context
from tablectl.config.loading import load_config, parse_config
from tablectl.config.ports import STANDARD_BAUDS, port_problems, port_warnings
from tablectl.config.problems import BrokerSetupError, ConfigError, Problem, shown
from tablectl.config.sections import MAX_PATH, Device, TableConfig

__all__ = [
    "GAME_IDS",
    "MAX_PATH",
    "STANDARD_BAUDS",
    "BrokerSetupError",
    "ConfigError",
    "Device",
    "LoadedConfig",
    "Problem",
    "TableConfig",
    "checked_paths",
    "load_config",
    "parse_config",
    "path_problems",
    "path_warnings",
    "port_problems",
    "port_warnings",
    "resolve",
    "shown",
    "tls_context",
]
