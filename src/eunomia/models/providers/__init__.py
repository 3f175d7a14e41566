"""Model providers, one module each; imported lazily by :func:`eunomia.models.get_model`."""
