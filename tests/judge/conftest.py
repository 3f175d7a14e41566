"""The judge tests use the fake chat server of the task tests."""

from tests.tasks.conftest import fake_llm, no_model_config

__all__ = ["fake_llm", "no_model_config"]
