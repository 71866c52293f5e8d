"""accls_train: dataset, fine-tuning, reward, evaluation and export of accls models."""
