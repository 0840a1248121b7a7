// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC1271} from "@openzeppelin/contracts/interfaces/IERC1271.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";

/// @title A minimal contract wallet for the sandbox's chains: one owner key signs for it (EIP-1271).
/// @notice Lets merchants and tests prove that Kassa accepts contract wallets (smart accounts, multisigs)
/// as well as keys: a signature is the wallet's when its owner made it over the same hash.
contract KassaSmartWallet is IERC1271 {
    /// @notice The key whose signatures the wallet accepts, and the only caller of `execute`.
    address public immutable owner;

    error NotOwner(address caller);
    error CallFailed(bytes reason);

    constructor(address owner_) {
        owner = owner_;
    }

    /// @inheritdoc IERC1271
    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        (address signer, ECDSA.RecoverError error, ) = ECDSA.tryRecover(hash, signature);
        return error == ECDSA.RecoverError.NoError && signer == owner ? IERC1271.isValidSignature.selector : bytes4(0xffffffff);
    }

    /// @notice The owner moves what the wallet holds (tokens minted to it among them).
    function execute(address to, uint256 value, bytes calldata data) external returns (bytes memory) {
        if (msg.sender != owner) revert NotOwner(msg.sender);
        (bool ok, bytes memory result) = to.call{value: value}(data);
        if (!ok) revert CallFailed(result);
        return result;
    }

    receive() external payable {}
}
